extension DockConfig {
  /// The commented configuration installed as `/etc/puckalarm/puckd.conf`: every key
  /// documented, every assignment commented out at its default, so the file parses to
  /// `DockConfig.defaults`. Uncommenting a `#key = value` line keeps the documented default;
  /// uncommenting a `#[section]` header fits that part. Tests hold both to be true, and its
  /// sections and `#key =` lines to `DockConfig.sections`, in order (`ConfigKeyTableTests`).
  /// Kept as a literal, not rendered from the table: `packaging/extract-default-config` takes it
  /// from this source for `make install` and the Debian package without building anything.
  public static let defaultFileText = """
    # PuckAlarm dock configuration (puckd.conf).
    #
    # Every key is optional: a commented-out line shows the default. Uncomment a line and
    # change its value to change a setting, then restart puckd (systemctl restart puckd).
    # Lines starting with # or ; are comments; so is the rest of a line after " #".
    # Durations: a whole number with a unit: 500ms, 60s, 10min, 1h, or combined: 1min 30s.
    # A plain number is seconds. Yes/no values: yes, no, true, false, on, off, 1, 0.

    [reader]
    # Which NFC reader to poll for the paired tag ("sudo puckctl setup" finds it and sets this).
    #   auto       the first reader libnfc finds: one named in /etc/nfc/libnfc.conf
    #              (device.connstring) or in a file of /etc/nfc/devices.d, otherwise a USB
    #              reader (ACR122U). Never a PN532 on UART, I2C or SPI: libnfc probes those
    #              only with allow_intrusive_scan, which Debian leaves off and which must stay
    #              off on a Pi (it writes to every serial port, the Bluetooth UART and a serial
    #              console included). Name such a reader here instead.
    #   simulated  no reader; scans come from "puckctl scan UID" (for rehearsals and tests)
    #   none       no reader on the dock; only remote readers ("puckctl reader add NAME")
    #   otherwise  a libnfc connstring: pn532_uart:/dev/serial0 on a Pi 3, 4 or Zero 2 W (the
    #              UART on GPIO 14/15), pn532_uart:/dev/ttyAMA0 on a Pi 5 (its serial0 is the
    #              debug connector), pn532_i2c:/dev/i2c-1, pn532_spi:/dev/spidev0.0:500000,
    #              acr122_usb
    #device = auto
    # How often to look for a tag while a wake-up is open or a pairing waits, 10ms to 1s. Shorter
    # sees the puck sooner and costs more CPU (docs/BENCHMARKS.md "Detection").
    #poll_interval = 30ms

    [audio]
    # The ALSA PCM to play on ("aplay -L" lists them): default, plughw:CARD=Headphones (the
    # 3.5 mm jack of a Pi 3 or 4), plughw:CARD=MAX98357A (a MAX98357A amplifier on I2S with
    # dtoverlay=max98357a), hdmi:CARD=vc4hdmi0,DEV=0, ...; not pulse or a desktop's default.
    #device = default
    # A sound file to play (an absolute path): WAV, FLAC, Ogg Vorbis, Opus or MP3, at most 5
    # minutes (it loops). The service cannot see /home, /root, /run/user or /tmp: keep it in
    # /usr/local/share/sounds or /etc/puckalarm. It is decoded at start and on reload (SIGHUP),
    # never when an alarm fires; if it cannot be used, the log and status say why and the
    # built-in tone rings.
    # Empty means the built-in tone, which is always available.
    #sound =
    # The volume the ring starts at, 0% to 100%.
    #start_volume = 30%
    # How long the volume takes to rise from start_volume to full: 0s to 30min.
    #ramp = 60s
    # Each ring of a wake-up after a bypass starts this much louder than the one before
    # (up to full volume): 0% to 100%; 0% starts every ring at start_volume.
    #volume_step = 0%
    # While the alarm rings, every playback switch of the device's card is turned on and every
    # playback volume raised to at least this (0% to 100%), again every second, so a muted or
    # turned-down mixer cannot silence it; they are put back as they were when the wake-up ends.
    #min_mixer_volume = 70%

    # An active buzzer on a GPIO line, driven on and off while the alarm rings. Without a
    # [buzzer] section there is no buzzer; uncomment the header to fit one.
    #[buzzer]
    # The GPIO chip, as "gpiodetect" names it.
    #chip = gpiochip0
    # The line's offset on that chip (22) or, better, its name ("gpioinfo" lists them, e.g.
    # GPIO22): a name survives chip renumbering. Not GPIO18: an I2S amplifier uses it.
    #line = 22
    # yes if the buzzer sounds when the line is driven low.
    #active_low = no
    # How long each beep lasts, and the pause between beeps: 10ms to 10s each.
    #on = 500ms
    #off = 500ms

    # A dock button on a GPIO input: a press stops the ring as a bypass (the alarm comes back
    # after retry_delay until the paired tag is scanned). Without a [button] section there
    # is no button.
    #[button]
    #chip = gpiochip0
    #line = 17
    # yes for a button that connects the line to ground (the usual wiring, with a pull-up).
    #active_low = yes

    # A status LED on a GPIO output, showing the dock's state. Without an [led] section there
    # is no LED.
    #[led]
    #chip = gpiochip0
    #line = 27
    #active_low = no

    [enforcement]
    # How long after a bypass (button, "puckctl stop", ring timeout) the alarm rings again:
    # 5s to 30min.
    #retry_delay = 60s
    # "puckctl stop" (from a shell on the dock or over SSH) counts only once the ring has been
    # heard this long, and then silences it for at most half as long as it was heard, so no
    # script or loop of stops keeps a wake-up quiet. The dock button stops it at once: 5s to 30min.
    #stop_after = 20s
    # For this long before each alarm nothing may skip, disable, remove, pause or delay it, not
    # even root: the phone in bed cannot cancel the alarm at 05:59. Adding alarms and making one
    # earlier still work, and a change made in the last 2 minutes may be corrected. Already up?
    # Scan a paired puck in that time: the coming alarm ends before it rings ("up before the
    # alarm"). 0s to 12h; 0s turns the lock off.
    #lock_before = 1h
    # A ring nobody touches is silenced after this long and counted as a bypass: 1min to 2h.
    #ring_timeout = 10min
    # How late an alarm may still ring when the board was off or puckd down at its time;
    # later than this it is recorded as missed instead: 0s to 12h.
    #missed_grace = 30min
    # Each bypass after the first in one wake-up shortens the next retry by this much, down to
    # retry_floor: 0s to 30min (0s: every retry waits retry_delay). With retry_delay = 5min,
    # retry_shrink = 1min and retry_floor = 1min the retries come after 5, 4, 3, 2, 1, 1, ... min.
    #retry_shrink = 0s
    #retry_floor = 20s
    # How long "sudo puckctl override" waits, with the ring going on, before it closes the
    # wake-ups without a scan: 0s to 30min. The way out should cost something.
    #override_delay = 2min
    # How long before each alarm the pre-flight check runs (reader, pairing, audio, buzzer,
    # clock, remote readers, the armed timer); a failure chirps the buzzer and the speaker,
    # blinks the LED fast and shows in status: 1min to 2h. It also runs at start and on "puckctl check".
    #check_before = 10min
    # The wake-up check: this long after a wake-up ended with a scan, the dock chirps and waits
    # a minute for the dock button (or "puckctl awake"); without an answer the wake-up opens
    # again and rings until the next scan (someone who scanned and went back to bed). 0s to 2h;
    # 0s (the default) never asks.
    #awake_check = 0s

    [mqtt]
    # The MQTT broker through which remote readers (a reader node in the kitchen, say) reach
    # this dock. Used only once a reader is enrolled with "sudo puckctl reader add NAME".
    # Each connection takes a new random client ID at each start, published nowhere, so no
    # other client of the broker can throw it off by using its ID.
    #host = 127.0.0.1
    # 1883 for plain MQTT, 8883 for MQTT over TLS (set ca_file).
    #port = 1883
    # The dock's broker account and a root-only file holding its password; empty: anonymous.
    #username =
    #password_file =
    # The CA certificate that signed the broker's; set, the connection uses TLS.
    #ca_file =
    # This dock's name among the docks a reader serves; empty: the host name.
    #dock_name =

    [homeassistant]
    # Show the dock in Home Assistant through MQTT discovery, over the [mqtt] broker: the next
    # alarm, ringing, wake-up open, protected, bypasses, the last wake-up, a bypass button (it
    # silences and re-arms, nothing more), wake-up events, and each reader as a tag scanner
    # (tag IDs are keyed hashes, never UIDs). Nothing Home Assistant can do ends a wake-up.
    #enabled = no
    #discovery_prefix = homeassistant
    # The bypass button, and anything else that can publish on the dock's bypass topic: off
    # unless set to yes (an automation that presses it could keep every ring quiet). When on,
    # a press counts only after the ring has been heard for bypass_after (0s to 30min) and at
    # most bypass_limit times per wake-up (1 to 10); a refused press is logged and shown in
    # Home Assistant as a bypass_refused event. Retained and repeated presses are ignored.
    #bypass_button = no
    #bypass_after = 30s
    #bypass_limit = 1
    # For wake-up lights: a pre_alarm event this long before each alarm (1s to 12h), and the
    # time of the next one as the "Pre-alarm" sensor. It only tells; it ends nothing.
    #pre_alarm = 30min

    [web]
    # The web app (puck-web): status, alarms and the holiday pause from a phone on the home
    # network. To turn it on: "sudo puckctl web password", set enabled = yes, then
    # "sudo systemctl enable --now puck-web". It has the puckalarm group's rights: it cannot
    # stop a ring, override, pair or manage reader keys.
    #enabled = no
    # Where it listens: all (every IPv4 and IPv6 address of the dock) or one of its addresses,
    # such as 192.168.1.20 (127.0.0.1 behind a reverse proxy).
    #address = all
    #port = 8469
    # HTTPS: a PEM certificate and its private key (root:puckalarm, mode 0640); both set, it
    # speaks HTTPS only (README "HTTPS" has a self-signed recipe). Empty: plain HTTP.
    #certificate =
    #key =
    # Names the phone may use for the dock besides its IP address, localhost and its own host
    # name (also with .local), separated by spaces: the router's name for it, say. Any other
    # name is refused, so no other site can pass for the dock (DNS rebinding).
    #hostnames =

    """
}
