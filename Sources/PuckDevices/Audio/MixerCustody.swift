import Synchronization

/// Who holds a ringer's mixer and what its controls were when the hold began. Shared by the
/// ringer, its ring threads and its restores, which run one after another (each thread waits for
/// the one before it), so a restore never races a raise.
///
/// Synchronisation: `Sendable` without `@unchecked`; the state is behind a `Mutex`.
final class MixerCustody: Sendable {
  private struct State {
    /// The floor in percent while held; nil when the mixer is left alone.
    var floor: Int?
    /// The control device the originals were read on, and its configuration text.
    var control: String?
    var configuration: String?
    /// Every playback control as the first ring of the hold found it (the builder's settings).
    var snapshot: [MixerControl]?
    /// The labels of the controls raised since.
    var raised: Set<String> = []
  }

  private let state = Mutex(State())

  /// Rings raise the mixer to at least `floor` percent from now on.
  func hold(floor: Int) { state.withLock { $0.floor = floor } }

  /// Rings leave the mixer alone from now on.
  func release() { state.withLock { $0.floor = nil } }

  /// The floor while held.
  var floor: Int? { state.withLock { $0.floor } }

  /// Whether some control was raised and not yet put back.
  var hasOriginals: Bool { state.withLock { !$0.raised.isEmpty } }

  /// Keeps `controls`, read on `control` before a raise, as the builder's settings, unless
  /// the hold already has them: a control muted again mid-ring is put back as it was before
  /// the first ring, not as the child left it.
  func snapshot(_ controls: [MixerControl], on control: String, configuration: String?) {
    state.withLock { state in
      guard state.snapshot == nil || state.control != control else { return }
      state.control = control
      state.configuration = configuration
      state.snapshot = controls
      state.raised = []
    }
  }

  /// `controls` are about to be raised: they are put back when the hold ends. False when the
  /// hold has ended meanwhile (a ring's last second racing the release): nothing is raised
  /// then, so nothing is left raised after the restore.
  func raising(_ controls: [MixerControl]) -> Bool {
    state.withLock { state in
      guard state.floor != nil else { return false }
      for control in controls { state.raised.insert(control.label) }
      return true
    }
  }

  /// What to put back (the raised controls as the snapshot has them), and forgets the hold's
  /// snapshot.
  func takeOriginals() -> (control: String, configuration: String?, controls: [MixerControl])? {
    state.withLock { state in
      defer {
        state.control = nil
        state.configuration = nil
        state.snapshot = nil
        state.raised = []
      }
      guard let control = state.control, let snapshot = state.snapshot else { return nil }
      let controls = snapshot.filter { state.raised.contains($0.label) }
      return controls.isEmpty ? nil : (control, state.configuration, controls)
    }
  }
}
