import Testing

@testable import DatebookDelivery

@Suite struct HeaderLineTests {
    @Test(arguments: [("ok", "ok"), ("a\r\nb", "ab"), ("x\u{0}y\u{85}z\u{2028}w\u{2029}", "xyzw"), ("Grüße €", "Grüße €")])
    func headerLinesLoseLineBreaks(input: String, expected: String) {
        #expect(input.strippingLineBreaks == expected)
    }
}
