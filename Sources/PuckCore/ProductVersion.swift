/// The version both programs report with `--version`.
public enum ProductVersion {
  /// Semantic version of this build.
  public static let current = "0.1.0"
}
