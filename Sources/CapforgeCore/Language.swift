import Foundation

/// Forgiving language identification: `en`, `en-US`, `en_GB`, `eng`, `English` all name English.
///
/// Container tags use ISO 639-2 (bibliographic or terminologic), engines use ISO 639-1; this is
/// the one place that maps between them.
public struct Language: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// ISO 639-1 where one exists (otherwise the 639-2/3 code, e.g. "haw", "yue").
    public let code: String
    public let name: String
    /// ISO 639-2 codes (terminologic first), e.g. ["deu", "ger"].
    public let alpha3: [String]

    public var description: String { code }

    public static func < (lhs: Language, rhs: Language) -> Bool { lhs.code < rhs.code }

    /// What Capforge assumes, with a warning, when a language can be neither read nor detected.
    public static let english = table["en"]!

    /// Resolves a user- or container-given identifier; nil for unknown ones ("und", "xx").
    public init?(_ identifier: String) {
        let trimmed = identifier.trimmingCharacters(in: .whitespaces).lowercased()
        // Region and script subtags fall back to the language: en-US → en, zh_Hant → zh.
        let primary = String(trimmed.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
        guard let entry = Self.table[primary] ?? Self.table[trimmed] else { return nil }
        self = entry
    }

    private init(code: String, name: String, alpha3: [String]) {
        self.code = code
        self.name = name
        self.alpha3 = alpha3
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }

    public init(from decoder: Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let language = Language(raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown language '\(raw)'"))
        }
        self = language
    }

    /// Every known language, ordered by code.
    public static let all: [Language] = {
        var seen = Set<String>()
        return table.values.filter { seen.insert($0.code).inserted }.sorted { $0.code < $1.code }
    }()

    // code | name | ISO 639-2 codes. Covers Whisper's languages and the common container tags.
    private static let rows = """
        af|Afrikaans|afr;am|Amharic|amh;ar|Arabic|ara;as|Assamese|asm;az|Azerbaijani|aze;ba|Bashkir|bak;\
        be|Belarusian|bel;bg|Bulgarian|bul;bn|Bengali|ben;bo|Tibetan|bod,tib;br|Breton|bre;bs|Bosnian|bos;\
        ca|Catalan|cat;cs|Czech|ces,cze;cy|Welsh|cym,wel;da|Danish|dan;de|German|deu,ger;el|Greek|ell,gre;\
        en|English|eng;es|Spanish|spa;et|Estonian|est;eu|Basque|eus,baq;fa|Persian|fas,per;fi|Finnish|fin;\
        fo|Faroese|fao;fr|French|fra,fre;ga|Irish|gle;gl|Galician|glg;gu|Gujarati|guj;ha|Hausa|hau;\
        haw|Hawaiian|haw;he|Hebrew|heb;hi|Hindi|hin;hr|Croatian|hrv;ht|Haitian Creole|hat;hu|Hungarian|hun;\
        hy|Armenian|hye,arm;id|Indonesian|ind;is|Icelandic|isl,ice;it|Italian|ita;ja|Japanese|jpn;\
        jw|Javanese|jav;ka|Georgian|kat,geo;kk|Kazakh|kaz;km|Khmer|khm;kn|Kannada|kan;ko|Korean|kor;\
        la|Latin|lat;lb|Luxembourgish|ltz;ln|Lingala|lin;lo|Lao|lao;lt|Lithuanian|lit;lv|Latvian|lav;\
        mg|Malagasy|mlg;mi|Maori|mri,mao;mk|Macedonian|mkd,mac;ml|Malayalam|mal;mn|Mongolian|mon;\
        mr|Marathi|mar;ms|Malay|msa,may;mt|Maltese|mlt;my|Burmese|mya,bur;ne|Nepali|nep;nl|Dutch|nld,dut;\
        nn|Norwegian Nynorsk|nno;no|Norwegian|nor,nob;oc|Occitan|oci;pa|Punjabi|pan;pl|Polish|pol;\
        ps|Pashto|pus;pt|Portuguese|por;ro|Romanian|ron,rum;ru|Russian|rus;sa|Sanskrit|san;sd|Sindhi|snd;\
        si|Sinhala|sin;sk|Slovak|slk,slo;sl|Slovenian|slv;sn|Shona|sna;so|Somali|som;sq|Albanian|sqi,alb;\
        sr|Serbian|srp;su|Sundanese|sun;sv|Swedish|swe;sw|Swahili|swa;ta|Tamil|tam;te|Telugu|tel;\
        tg|Tajik|tgk;th|Thai|tha;tk|Turkmen|tuk;tl|Tagalog|tgl,fil;tr|Turkish|tur;tt|Tatar|tat;\
        uk|Ukrainian|ukr;ur|Urdu|urd;uz|Uzbek|uzb;vi|Vietnamese|vie;yi|Yiddish|yid;yo|Yoruba|yor;\
        yue|Cantonese|yue;zh|Chinese|zho,chi;zu|Zulu|zul
        """

    private static let table: [String: Language] = {
        var table: [String: Language] = [:]
        for row in rows.split(separator: ";") {
            let fields = row.split(separator: "|").map { String($0).trimmingCharacters(in: .whitespaces) }
            let language = Language(code: fields[0], name: fields[1], alpha3: fields[2].split(separator: ",").map(String.init))
            for key in [language.code, language.name.lowercased()] + language.alpha3 { table[key] = language }
        }
        // Common aliases: Whisper's "jw" is ISO "jv"; "iw" and "in" are retired codes.
        table["jv"] = table["jw"]
        table["iw"] = table["he"]
        table["in"] = table["id"]
        table["nb"] = table["no"]
        return table
    }()
}

/// `--lang`: decided per file (stream tag, then detection), or given.
public enum LanguageChoice: Sendable, Hashable, Codable {
    case auto
    case fixed(Language)

    /// "auto", or any identifier `Language` knows; nil for anything else.
    public init?(_ text: String) {
        if text == "auto" {
            self = .auto
        } else if let language = Language(text) {
            self = .fixed(language)
        } else {
            return nil
        }
    }
}
