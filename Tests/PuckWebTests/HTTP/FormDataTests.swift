import Testing

@testable import PuckWeb

@Suite struct FormDataTests {
  private func form(_ text: String) -> FormData? { FormData(urlEncoded: Array(text.utf8)) }

  @Test("fields are percent-decoded, + is a space, repeated names keep every value in order")
  func decodes() throws {
    let decoded = try #require(form("time=06%3A30&days=mon&days=fri&label=a+b%20c%2B&empty=&flag"))
    #expect(decoded["time"] == "06:30")
    #expect(decoded.values("days") == ["mon", "fri"])
    #expect(decoded["label"] == "a b c+")
    #expect(decoded["empty"] == "")
    #expect(decoded["flag"] == "")
    #expect(decoded["missing"] == nil)
    #expect(try #require(form("label=%C3%A9t%C3%A9"))["label"] == "été")
    #expect(form("")?.fields.isEmpty == true)
  }

  @Test("a body that is not a well-formed form is refused whole")
  func refusesMalformed() {
    #expect(form("a=%") == nil, "a cut escape")
    #expect(form("a=%4") == nil, "a cut escape")
    #expect(form("a=%zz") == nil, "not hex")
    #expect(form("a=%FF%FE") == nil, "not UTF-8")
    #expect(form("=value") == nil, "no name")
    let many = (0...FormData.maximumFields).map { "f\($0)=x" }.joined(separator: "&")
    #expect(form(many) == nil, "more fields than a form of the app has")
    let enough = (1...FormData.maximumFields).map { "f\($0)=x" }.joined(separator: "&")
    #expect(form(enough)?.fields.count == FormData.maximumFields)
  }

  @Test("cookies are read from the Cookie header by name")
  func cookies() {
    let request = HTTPRequest(
      method: "GET", path: "/", headers: ["cookie": "a=1; puck_session=abc ;b=2=3; puck_session=second"])
    #expect(request.cookies["puck_session"] == "abc")
    #expect(request.cookies["b"] == "2=3")
    #expect(request.header("Cookie") != nil)
  }
}
