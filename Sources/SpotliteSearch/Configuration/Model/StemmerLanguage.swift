/// The stemmers of Xapian 1.4.22 (`Xapian::Stem::get_available_languages()`) and the ISO 639 codes it accepts
/// for them. Greek only arrived in Xapian 1.5, so `greek`/`el` are refused here rather than failing later.
public enum StemmerLanguage {
    /// Every accepted spelling, mapped to the stemmer's own name.
    public static let names: [String: String] = {
        var names: [String: String] = ["none": "none"]
        for language in stemmers {
            names[language] = language
        }
        for (code, language) in isoCodes {
            names[code] = language
        }
        return names
    }()

    /// The accepted values, sorted, for error messages.
    public static var acceptedValues: [String] {
        names.keys.sorted()
    }

    /// The stemmer's own name for `value`, or nil when Xapian 1.4 has no such stemmer.
    /// Matching is exact: Xapian itself rejects `English`.
    public static func canonicalName(of value: String) -> String? {
        names[value]
    }

    private static let stemmers = [
        "arabic", "armenian", "basque", "catalan", "danish", "dutch", "earlyenglish", "english", "finnish", "french",
        "german", "german2", "hungarian", "indonesian", "irish", "italian", "kraaij_pohlmann", "lithuanian", "lovins",
        "nepali", "norwegian", "porter", "portuguese", "romanian", "russian", "spanish", "swedish", "tamil", "turkish",
    ]

    private static let isoCodes = [
        "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "da": "danish", "nl": "dutch",
        "en": "english", "fi": "finnish", "fr": "french", "de": "german", "hu": "hungarian", "id": "indonesian",
        "ga": "irish", "it": "italian", "lt": "lithuanian", "ne": "nepali", "nb": "norwegian", "nn": "norwegian",
        "no": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian", "es": "spanish", "sv": "swedish",
        "ta": "tamil", "tr": "turkish",
    ]
}
