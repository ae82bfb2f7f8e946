import Testing

@testable import PuckWeb

@Suite struct BarChartTests {
  @Test("bars scale to the largest, with their values and labels; text is escaped; no style or script")
  func draws() {
    let chart = BarChart(
      title: "Minutes <to> get up",
      bars: [
        .init(label: "Mon", value: 10, text: "10"), .init(label: "Tue", value: 5, text: "5"),
        .init(label: "Wed", value: 0, text: ""),
      ])
    let svg = chart.svg.text
    #expect(svg.hasPrefix("<svg class=\"chart\" viewBox=\"0 0 320 160\" role=\"img\""))
    #expect(svg.contains("<title id=\"chart-minutes--to--get-up\">Minutes &lt;to&gt; get up</title>"))
    // The plot is 116 high: the largest bar fills it, half the largest half of it, zero nothing.
    #expect(svg.contains("height=\"116\""))
    #expect(svg.contains("height=\"58\""))
    #expect(svg.contains("height=\"0\""))
    #expect(svg.contains(">Mon</text>") && svg.contains(">10</text>"))
    #expect(!svg.contains("style=") && !svg.contains("<script"))
    #expect(BarChart(title: "empty", bars: []).svg.text.contains("</svg>"))
    #expect(BarChart.number(12.345) == "12.3" && BarChart.number(4) == "4")
  }
}
