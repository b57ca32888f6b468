extension String {
    /// Whether some UTF-8 byte of the text passes `test`, read in place (iterating `utf8` costs about
    /// 25 instructions a byte; a native string's bytes are contiguous). The one way the hot paths
    /// (an import's checks, HTML escaping) look for a byte in a String.
    public func hasByte(where test: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(where: test) } ?? utf8.contains(where: test)
    }
}
