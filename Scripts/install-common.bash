# Sourced by Scripts/install and Scripts/uninstall, not run: the one place that decides which
# manifest entries they may write or delete. The manifest may be hand-edited, so no entry is
# trusted: neither script touches a path that does not resolve, folder by folder, inside the
# prefix, nor follows a symlink, nor deletes anything but a plain file.

capforge_manifest=share/capforge/install-manifest.txt

# not_plain PATH: something is at PATH that is not a plain file (a symlink, even to a file, or a folder).
not_plain() { [ -L "$1" ] || { [ -e "$1" ] && [ ! -f "$1" ]; }; }

# check_entry PREFIX RELATIVE: succeeds when RELATIVE is one of the places install writes
# (bin/capforge, lib/capforge/…, share/capforge/…, share/man/man1/capforge.1) and no folder between PREFIX (physical, from
# realpath) and it is a symlink, so that the path resolves inside PREFIX as written; otherwise
# sets $refusal to why and fails.
check_entry() {
  local prefix=${1%/} relative=$2 folder part target parts
  refusal=
  if [[ $relative == *[[:cntrl:]]* ]]; then refusal="it has control characters"
  elif [[ $relative == /* ]]; then refusal="it is an absolute path"
  elif [[ /$relative/ == */../* ]]; then refusal="it has a '..' component"
  elif [[ /$relative/ == *//* || /$relative/ == */./* ]]; then refusal="it has an empty or '.' component"
  elif [[ $relative != bin/capforge && $relative != lib/capforge/?* && $relative != share/capforge/?* && $relative != share/man/man1/capforge.1 ]]; then
    refusal="install never writes there"
  else
    # Each folder on the way must be a real one: a symlink (even a dangling or looping one) could
    # lead outside the prefix. PREFIX itself is already physical.
    folder=$prefix
    IFS=/ read -r -a parts <<<"${relative%/*}"
    for part in "${parts[@]}"; do
      folder=$folder/$part
      if [ -L "$folder" ]; then
        target=$(readlink -- "$folder")
        refusal="its folder $folder is a symlink (to ${target//[[:cntrl:]]/?}); install writes and deletes only in real folders"
        break
      fi
    done
  fi
  [ -z "$refusal" ]
}

# check_manifest PREFIX: succeeds when the manifest's place holds a plain file or nothing, in real
# folders; otherwise sets $refusal and fails (a symlinked manifest could be any file anywhere).
check_manifest() {
  local path=${1%/}/$capforge_manifest
  if ! check_entry "$1" "$capforge_manifest"; then refusal="the manifest $path: $refusal"; return 1; fi
  if [ -L "$path" ]; then refusal="the manifest $path is a symlink; install only ever writes a plain file there"; return 1; fi
  if not_plain "$path"; then refusal="the manifest $path is not a plain file"; return 1; fi
  if not_plain "$path.capforge-new"; then
    refusal="$path.capforge-new, the manifest's temporary name, is not a plain file"; return 1
  fi
}

# read_manifest PREFIX WHO: sets `entries` to the manifest's lines that pass check_entry, each
# once, the manifest's own line left out (its caller handles it); says on stderr which lines it
# ignores and why, and keeps them in `ignored`. Run check_manifest first.
read_manifest() {
  local prefix=${1%/} who=$2 line
  local -A seen=()
  entries=()
  ignored=()
  # `|| [ -n "$line" ]`: a hand-edited last line often has no newline.
  while IFS= read -r line || [ -n "$line" ]; do
    [ -n "$line" ] && [ "$line" != "$capforge_manifest" ] || continue
    if ! check_entry "$prefix" "$line"; then
      printf '%s: ignoring the manifest line %q: %s\n' "$who" "$line" "$refusal" >&2
      ignored+=("$line")
    elif [ -z "${seen[$line]:-}" ]; then
      seen[$line]=1
      entries+=("$line")
    fi
  done < "$prefix/$capforge_manifest"
}

# remove_entry PREFIX RELATIVE: deletes the plain file install wrote at RELATIVE (which passed
# check_entry) and the temporary copy an interrupted install may have left beside it. Fails with
# $refusal set when something else is there: install writes no symlinks and no folders, so such a
# thing is someone else's and stays (a symlink is never followed). `removed_file` says whether
# RELATIVE itself was deleted.
remove_entry() {
  local path=${1%/}/$2 name
  refusal=
  removed_file=0
  for name in "$path.capforge-new" "$path"; do
    if not_plain "$name"; then
      refusal="$name is not a plain file (a symlink or a folder install did not write); left in place"
    elif [ -f "$name" ]; then
      rm -f -- "$name"
      [ "$name" != "$path" ] || removed_file=1
    fi
  done
  [ -z "$refusal" ]
}

# prune_folders PREFIX RELATIVE…: removes the folders of these entries that are now empty, up to
# lib/capforge, share/capforge and share/man (PREFIX/bin, PREFIX/lib and PREFIX/share belong to the
# system). rmdir removes only empty real folders, so a folder holding anyone's file, or a symlink, stays.
prune_folders() {
  local prefix=${1%/} relative folder
  shift
  for relative; do
    folder=${relative%/*}
    while [[ $folder == lib/capforge || $folder == lib/capforge/* || $folder == share/capforge || $folder == share/capforge/* \
             || $folder == share/man/man1 || $folder == share/man ]]; do
      rmdir -- "$prefix/$folder" 2>/dev/null || break
      folder=${folder%/*}
    done
  done
}

# write_manifest PREFIX ENTRY…: replaces the manifest with these entries and its own line, through
# a temporary name and a rename, so that a reader sees the old list or the new one, never half.
write_manifest() {
  local path=${1%/}/$capforge_manifest
  shift
  mkdir -p -- "${path%/*}"
  rm -f -- "$path.capforge-new"
  printf '%s\n' "$@" "$capforge_manifest" > "$path.capforge-new"
  mv -fT -- "$path.capforge-new" "$path"
}
