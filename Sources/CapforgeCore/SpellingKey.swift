extension String {
    /// Lower-case letters and digits only: how two spellings of one word or line are compared
    /// ("Carlos," is "carlos", "MFA." is "mfa").
    public var spellingKey: String { lowercased().filter { $0.isLetter || $0.isNumber } }
}
