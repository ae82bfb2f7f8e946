import PuckSystem

/// The audio retry schedule in `ALSARinger.Configuration`, kept under its public name so callers
/// of PuckDevices need not import PuckSystem to configure a ringer; it is PuckSystem's one
/// `Backoff`.
public typealias RetryBackoff = Backoff

/// The reader's reopen delays (a counter: `delay()` after each failure, `reset()` after a
/// success); PuckSystem's one `Backoff`.
typealias ReopenBackoff = Backoff
