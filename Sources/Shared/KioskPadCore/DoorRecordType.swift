/// The `type` of a record a door journals and forwards to its site (`kioskpad.TYPE` in the
/// events' envelopes): the words the door writes and the site reads, in one place, so
/// neither side spells one of its own.
public enum DoorRecordType: String, Sendable, CaseIterable {
    case attempt
    /// A duress PIN was typed: written, and so forwarded, before its attempt.
    case duress
    case lockout
    case pinEnrolment = "pin_enrolment"
    case remoteUnlockRefused = "remote_unlock_refused"
    /// A command from the site's desk (remote unlock or lock) acted on or refused.
    case remoteCommand = "remote_command"
    case fault
    case wiegandDropped = "wiegand_dropped"
    case keypadFailed = "keypad_failed"
    case keypadRecovered = "keypad_recovered"
    case readerOnline = "reader_online"
    case readerOffline = "reader_offline"
    case readerTamper = "reader_tamper"
    case readerTamperCleared = "reader_tamper_cleared"
    case readerPowerFailed = "reader_power_failed"
    case readerPowerRestored = "reader_power_restored"
    case readerRefused = "reader_refused"
    case readerMessageDropped = "reader_message_dropped"
    case doorUnlocked = "door_unlocked"
    case doorLocked = "door_locked"
    case doorOpened = "door_opened"
    case doorClosed = "door_closed"
    case heldOpen = "held_open"
    case forcedOpen = "forced_open"
    case exitRequest = "exit_request"
    case tamper
    case tamperCleared = "tamper_cleared"
    case doorMode = "door_mode"
    case start
    case stop
    case eventsDropped = "events_dropped"
    /// The door's heartbeat: its state now.
    case status
    /// A torn last record was cut off at start.
    case journalRepaired = "journal_repaired"
}
