/// Command codes a control panel sends (SIA OSDP v2.2, section 6), those KioskPad uses.
public enum OSDPCommand: UInt8, Sendable, CaseIterable {
    case poll = 0x60
    case id = 0x61
    case capabilities = 0x62
    case localStatus = 0x64
    case led = 0x69
    case buzzer = 0x6A
    case text = 0x6B
    case keySet = 0x75
    case challenge = 0x76
    case serverCryptogram = 0x77
}

/// Reply codes a reader sends (section 7), those KioskPad reads.
public enum OSDPReply: UInt8, Sendable, CaseIterable {
    case ack = 0x40
    case nak = 0x41
    case id = 0x45
    case capabilities = 0x46
    case localStatus = 0x48
    case rawCard = 0x50
    case formattedCard = 0x51
    case keypad = 0x53
    case clientCryptogram = 0x76
    case initialMAC = 0x78
    case busy = 0x79
}

/// The security block types of the Secure Channel (SCS_11 ... SCS_18).
public enum OSDPSecurityBlock: UInt8, Sendable {
    /// osdp_CHLNG: the CP's random number; data 1 = SCBK, 0 = SCBK-D (install mode).
    case challenge = 0x11
    /// osdp_CCRYPT: the reader's UID, random number and cryptogram.
    case clientCryptogram = 0x12
    /// osdp_SCRYPT: the CP's cryptogram.
    case serverCryptogram = 0x13
    /// osdp_RMAC_I: the initial reply MAC; data 1 = the CP's cryptogram was accepted.
    case initialMAC = 0x14
    /// A command with a MAC, its data (if any) in the clear.
    case commandMAC = 0x15
    /// A reply with a MAC, its data (if any) in the clear.
    case replyMAC = 0x16
    /// A command with a MAC and its data encrypted.
    case commandEncrypted = 0x17
    /// A reply with a MAC and its data encrypted.
    case replyEncrypted = 0x18

    /// True for the types that end the message with a 4-byte MAC.
    public var hasMAC: Bool { rawValue >= 0x15 }
}
