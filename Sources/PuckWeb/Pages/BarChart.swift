/// A bar chart as SVG, drawn on the server (no script): bars with their values written above
/// them and their labels below, a title for screen readers. Colours come from the style sheet
/// (`.chart` classes), so the chart follows the dark or light scheme.
public struct BarChart: Sendable {
  /// One bar: its label under it, its value, and the text written above it (empty: none).
  public struct Bar: Sendable {
    public var label: String
    public var value: Double
    public var text: String

    public init(label: String, value: Double, text: String) {
      self.label = label
      self.value = value
      self.text = text
    }
  }

  public var title: String
  public var bars: [Bar]

  public init(title: String, bars: [Bar]) {
    self.title = title
    self.bars = bars
  }

  /// The chart, 320 by 160 user units, scaled to the page's width.
  public var svg: HTML {
    let width = 320.0
    let height = 160.0
    let top = 20.0
    let bottom = 24.0
    let plot = height - top - bottom
    let slot = width / Double(max(bars.count, 1))
    let largest = bars.map(\.value).max() ?? 0
    let shapes = bars.enumerated().map { index, bar -> HTML in
      let barHeight = largest > 0 ? plot * max(0, bar.value) / largest : 0
      let x = Double(index) * slot + slot * 0.15
      let y = top + plot - barHeight
      let middle = Double(index) * slot + slot / 2
      return """
        <rect class="chart-bar" x="\(Self.number(x))" y="\(Self.number(y))" width="\(Self.number(slot * 0.7))" \
        height="\(Self.number(barHeight))"></rect>\
        <text class="chart-value" x="\(Self.number(middle))" y="\(Self.number(y - 4))" text-anchor="middle">\
        \(bar.text)</text>\
        <text class="chart-label" x="\(Self.number(middle))" y="\(Self.number(height - 6))" text-anchor="middle">\
        \(bar.label)</text>
        """
    }
    return """
      <svg class="chart" viewBox="0 0 320 160" role="img" aria-labelledby="chart-\(Self.slug(title))">\
      <title id="chart-\(Self.slug(title))">\(title)</title>\
      <line class="chart-axis" x1="0" y1="\(Self.number(top + plot))" x2="320" y2="\(Self.number(top + plot))"></line>\
      \(shapes)</svg>
      """
  }

  /// A coordinate with one decimal.
  static func number(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(abs(tenths % 10))"
  }

  /// `title` as an id: letters and digits, the rest as `-`.
  static func slug(_ title: String) -> String {
    String(title.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
  }
}
