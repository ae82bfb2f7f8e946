import Testing

@testable import PuckWeb

@Suite struct HTMLTests {
  @Test("text interpolated into HTML is escaped: a script label is text, quotes cannot leave an attribute")
  func textIsEscaped() {
    let label = "<script>alert(1)</script>"
    let html: HTML = "<p title=\"\(label)\">\(label)</p>"
    #expect(
      html.text
        == "<p title=\"&lt;script&gt;alert(1)&lt;/script&gt;\">&lt;script&gt;alert(1)&lt;/script&gt;</p>")
    let quote: HTML = "<input value=\"\("\" autofocus onfocus=\"alert(1)")\">"
    #expect(!quote.text.contains("\" autofocus"))
    #expect(quote.text.contains("&quot; autofocus onfocus=&quot;alert(1)"))
    #expect(HTML.escape("a & b's <c>") == "a &amp; b&#39;s &lt;c&gt;")
  }

  @Test("HTML interpolated into HTML stays markup; numbers and absent parts are written as such")
  func markupStaysMarkup() {
    let inner: HTML = "<em>\("x<y")</em>"
    let missing: HTML? = nil
    let outer: HTML = "<p>\(inner)\(3)\(missing)\([inner, inner])</p>"
    #expect(outer.text == "<p><em>x&lt;y</em>3<em>x&lt;y</em><em>x&lt;y</em></p>")
    #expect(HTML.joined(["<a>", "<b>"]).text == "<a><b>")
  }
}
