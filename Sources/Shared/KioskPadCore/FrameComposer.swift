/// Turns an ``EntrySnapshot`` into a ``Frame`` for one display geometry (pure).
///
/// Layout: on 2 rows, the status line then the slot row; on 3 or more rows, a title,
/// the status line, the slot row, and on 4 or more a key hint. Every row is centred and
/// padded to the full width. Text longer than the width is clipped, except the slot row,
/// which drops separators and then scrolls instead.
public struct FrameComposer: Sendable {
    public static let spinner: [Character] = ["|", "/", "-", "\\"]

    public let geometry: DisplayGeometry
    public let texts: DisplayTexts
    public let maskCharacter: Character
    public let emptyCharacter: Character

    public init(
        geometry: DisplayGeometry, texts: DisplayTexts = DisplayTexts(),
        maskCharacter: Character = "*", emptyCharacter: Character = "_"
    ) {
        self.geometry = geometry
        self.texts = texts
        self.maskCharacter = maskCharacter
        self.emptyCharacter = emptyCharacter
    }

    /// `alert` (the tamper text) replaces the prompt, in the warning style, while it is set.
    public func compose(_ snapshot: EntrySnapshot, alert: String? = nil) -> Frame {
        let prompt = alert ?? (snapshot.cardHeld ? texts.cardPIN : snapshot.mode == .pin ? texts.enterPIN : texts.enterCode)
        var status: String
        var second: String
        var style = FrameStyle.normal
        var hint = texts.hint
        switch snapshot.phase {
        case .challenge:
            status = texts.challenge.replacingAll("{code}", with: snapshot.challengeCode ?? "")
            second = slotRow(snapshot, showDigits: true)
        case .ready, .entering:
            status = alert ?? enrolmentPrompt(snapshot) ?? prompt
            second = slotRow(snapshot, showDigits: snapshot.mode == .code && !snapshot.cardHeld && snapshot.enrolment == nil)
            if alert != nil { style = .warning }
        case .verifying:
            status = texts.verifying + " " + String(FrameComposer.spinner[snapshot.spinnerStep % 4])
            // The slots submitted stay filled, masked in either mode: the last digit is seen.
            second = snapshot.filledCount > 0 ? slotRow(snapshot, showDigits: false) : ""
            style = .busy
            hint = ""
        case .result(let kind):
            switch kind {
            case .granted: (status, style) = (snapshot.enrolmentOutcome == nil ? texts.granted : texts.pinSet, .granted)
            case .denied where snapshot.cardLearned: (status, style) = (texts.cardLearned, .warning)
            case .denied: (status, style) = (enrolmentRefusal(snapshot.enrolmentOutcome) ?? texts.denied, .denied)
            case .unavailable: (status, style) = (texts.unavailable, .warning)
            }
            second = snapshot.message.map(FrameComposer.sanitise) ?? ""
            hint = ""
        case .lockedOut:
            status = texts.locked.replacingAll("{s}", with: String(snapshot.lockSecondsRemaining))
            second = texts.lockedHint
            style = .denied
            hint = ""
        case .help:
            return Frame(rows: wrapped(texts.help), style: .normal)
        }
        // A status too long for one row (e.g. "Verifier unavailable" on 16 columns) takes
        // the second row too when that row is free, instead of being clipped.
        if status.count > geometry.columns && second.isEmpty {
            let parts = wordWrapped(status)
            if parts.count == 2 { (status, second) = (parts[0], parts[1]) }
        }
        let slotLine = shifted(second, by: snapshot.shakeOffset)
        var lines: [String]
        if geometry.rows == 2 {
            lines = [centred(status), slotLine]
        } else {
            lines = [centred(texts.title), centred(status), slotLine]
            if geometry.rows >= 4 { lines.append(centred(hint)) }
        }
        while lines.count < geometry.rows { lines.append(padded("")) }
        return Frame(rows: lines, style: style)
    }

    /// The prompt while a PIN is chosen at the door: what went wrong, else the step's.
    private func enrolmentPrompt(_ snapshot: EntrySnapshot) -> String? {
        switch snapshot.enrolmentNotice {
        case .weak?: return texts.weakPIN
        case .pinsDiffer?: return texts.pinsDiffer
        case nil: break
        }
        switch snapshot.enrolment {
        case .code?: return texts.enrolCode
        case .newPIN?: return texts.newPIN
        case .repeatPIN?: return texts.repeatPIN
        case nil: return nil
        }
    }

    /// What a refused PIN choice shows (nil: the plain denial text).
    private func enrolmentRefusal(_ outcome: EnrolmentOutcome?) -> String? {
        guard case .refused(let reason)? = outcome else { return nil }
        switch reason {
        case .invalidCode: return texts.codeInvalid
        case .weakPIN: return texts.weakPIN
        case .previousPIN: return texts.previousPIN
        case .lockedOut: return nil
        }
    }

    /// Keeps printable ASCII only (verifier messages are untrusted).
    public static func sanitise(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { (0x20...0x7E).contains($0.value) }))
    }

    private func slotRow(_ snapshot: EntrySnapshot, showDigits: Bool) -> String {
        let cells: [Character] = (0..<snapshot.slotCount).map { index in
            guard index < snapshot.filledCount else { return emptyCharacter }
            if showDigits, index < snapshot.visibleDigits.count {
                return Character(String(snapshot.visibleDigits[index]))
            }
            return maskCharacter
        }
        let cursor = min(snapshot.filledCount, snapshot.slotCount - 1)
        return SlotRow.layout(cells: cells, cursor: cursor, columns: geometry.columns)
    }

    /// Centres a slot row and applies the shake offset, staying inside the width.
    private func shifted(_ text: String, by offset: Int) -> String {
        let line = centred(text)
        guard offset != 0, text.count < geometry.columns else { return line }
        if offset < 0, line.first == " " { return padded(String(line.dropFirst())) }
        if offset > 0, line.last == " " { return String((" " + line).prefix(geometry.columns)) }
        return line
    }

    private func centred(_ text: String) -> String {
        let clipped = String(text.prefix(geometry.columns))
        let left = (geometry.columns - clipped.count) / 2
        return padded(String(repeating: " ", count: left) + clipped)
    }

    private func padded(_ text: String) -> String {
        let clipped = String(text.prefix(geometry.columns))
        return clipped + String(repeating: " ", count: geometry.columns - clipped.count)
    }

    /// Word-wraps `text` over every row of the display, centred.
    private func wrapped(_ text: String) -> [String] {
        var lines = Array(wordWrapped(text).prefix(geometry.rows)).map(centred)
        while lines.count < geometry.rows { lines.append(padded("")) }
        return lines
    }

    /// Splits `text` into lines of at most `columns` characters at spaces.
    private func wordWrapped(_ text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if candidate.count <= geometry.columns || current.isEmpty {
                current = candidate
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
