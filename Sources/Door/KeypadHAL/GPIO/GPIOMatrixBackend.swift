#if canImport(CKeypadGPIO)
    import CKeypadGPIO
    import KioskPadCore
    #if canImport(Glibc)
        import Glibc
    #endif

    /// A ``MatrixBackend`` on a real `/dev/gpiochipN` through libgpiod, the v1 API (1.6: Debian
    /// 12, Raspberry Pi OS bookworm) or the v2 API (2.x: Debian 13, trixie), whichever the build
    /// found (the C shim `CKeypadGPIO` has one file per API): rows are open-drain outputs with
    /// pull-ups (never driven high), columns inputs with pull-ups and both-edge events. One bulk
    /// set and one bulk read per row; idle waits are `poll(2)` on the columns' event descriptors.
    public final class GPIOMatrixBackend: MatrixBackend {
        public static let consumer = "kioskpad"

        public let wiring: GPIOMatrixWiring
        private let handle: OpaquePointer

        public init(wiring: GPIOMatrixWiring) throws {
            self.wiring = wiring
            var error = kp_error()
            func split(_ lines: [LineReference]) -> ([Int32], [String]) {
                (
                    lines.map { if case .offset(let o) = $0 { Int32(o) } else { -1 } },
                    lines.map { if case .name(let n) = $0 { n } else { "" } }
                )
            }
            let (rowOffsets, rowNames) = split(wiring.rows)
            let (columnOffsets, columnNames) = split(wiring.columns)
            let opened: OpaquePointer? = withCStrings(rowNames) { rowNamePointers in
                withCStrings(columnNames) { columnNamePointers in
                    kp_open(
                        wiring.chip, rowOffsets, rowNamePointers, UInt32(wiring.rows.count),
                        columnOffsets, columnNamePointers, UInt32(wiring.columns.count),
                        wiring.activeLow ? 1 : 0, GPIOMatrixBackend.consumer, &error)
                }
            }
            guard let opened else { throw GPIOMatrixBackend.describe(error, wiring: wiring) }
            handle = opened
        }

        deinit {
            kp_close(handle)
        }

        public var rowCount: Int { wiring.rows.count }
        public var columnCount: Int { wiring.columns.count }
        public var valueCalls: Int { Int(kp_value_calls(handle)) }

        public func drive(row: Int) throws {
            guard kp_drive(handle, Int32(row)) == 0 else { throw systemError("setting row lines") }
        }

        public func driveAllRows() throws {
            guard kp_drive(handle, KP_ALL_ROWS) == 0 else { throw systemError("setting row lines") }
        }

        public func releaseAllRows() throws {
            guard kp_drive(handle, KP_NO_ROW) == 0 else { throw systemError("setting row lines") }
        }

        public func readColumns() throws -> UInt8 {
            var mask: UInt8 = 0
            guard kp_read_columns(handle, &mask) == 0 else { throw systemError("reading column lines") }
            return mask
        }

        public func drainEdges() throws -> EdgeSpan? {
            var first: UInt64 = 0
            var last: UInt64 = 0
            guard kp_drain_edges(handle, &first, &last) == 0 else { throw systemError("reading column edge events") }
            guard first != 0 else { return nil }
            return EdgeSpan(first: .nanoseconds(Int64(clamping: first)), last: .nanoseconds(Int64(clamping: last)))
        }

        /// poll(2) counts whole milliseconds: a timeout is rounded up, so a short wait sleeps
        /// rather than returning at once and spinning.
        public func waitForEdge(timeout: Duration?) throws -> Bool {
            let milliseconds = timeout.map { Int32(clamping: $0.roundedUpMilliseconds) } ?? -1
            let result = kp_wait_edge(handle, milliseconds)
            guard result >= 0 else { throw systemError("waiting for column edges") }
            return result == 1
        }

        public func wake() {
            kp_wake(handle)
        }

        private func systemError(_ doing: String) -> KeyedError {
            KeyedError(
                key: "keypad", message: "GPIO error while \(doing) on \(wiring.chip): \(String(cString: strerror(errno)))", kind: .unavailable(retryable: true))
        }

        /// `libgpiod VERSION (vN API)`, or why there is none.
        public static var library: String {
            let api = kp_api_version()
            guard api > 0 else { return "no libgpiod" }
            return "libgpiod \(String(cString: kp_library_version())) (v\(api) API)"
        }

        /// Lists the chips present, for error messages and `keytest`.
        public static func listChips() -> String {
            var buffer = [CChar](repeating: 0, count: 1024)
            kp_list_chips(&buffer, buffer.count)
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        static func describe(_ error: kp_error, wiring: GPIOMatrixWiring) -> KeyedError {
            let detail = withUnsafeBytes(of: error.detail) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let group = error.group == Int32(KP_GROUP_ROWS.rawValue) ? "rows" : "columns"
            let lines = error.group == Int32(KP_GROUP_ROWS.rawValue) ? wiring.rows : wiring.columns
            let index = Int(error.index)
            let key = index >= 0 && index < lines.count ? "keypad.\(group)[\(index)]" : "keypad.\(group)"
            let line = index >= 0 && index < lines.count ? lines[index].spoken : "a line"
            switch Int(error.code) {
            case Int(KP_ERR_CHIP_NOT_FOUND.rawValue):
                let present = detail.isEmpty ? "no GPIO chips are present" : "present: \(detail)"
                return KeyedError(
                    key: "keypad.chip", message: "no GPIO chip '\(wiring.chip)' (looked up by name, /dev path, number and label); \(present)",
                    kind: .unavailable(retryable: true))
            case Int(KP_ERR_PERMISSION.rawValue):
                return KeyedError(
                    key: "keypad.chip",
                    message:
                        "permission denied opening '\(wiring.chip)'; run as a member of group gpio (sudo usermod -aG gpio USER, then log in again) or install the udev rule from deploy/",
                    kind: .unavailable(retryable: true))
            case Int(KP_ERR_LINE_RANGE.rawValue):
                let count = Int(detail) ?? 0
                return KeyedError(
                    key: key, message: "\(line) is out of range; chip '\(wiring.chip)' has \(count) lines (0...\(max(count - 1, 0)))",
                    kind: .unavailable(retryable: false))
            case Int(KP_ERR_LINE_NAME.rawValue):
                return KeyedError(
                    key: key, message: "no line named '\(detail)' on chip '\(wiring.chip)' (gpioinfo lists the names)", kind: .unavailable(retryable: false))
            case Int(KP_ERR_BUSY.rawValue):
                return KeyedError(
                    key: key, message: "\(line) on '\(wiring.chip)' is busy, held by '\(detail)'; stop that program or wire another line",
                    kind: .unavailable(retryable: true))
            case Int(KP_ERR_UNSUPPORTED.rawValue):
                return KeyedError(key: "keypad.driver", message: detail, kind: .unavailable(retryable: false))
            default:
                return KeyedError(
                    key: key, message: "cannot use \(line) on '\(wiring.chip)': \(detail.isEmpty ? String(cString: strerror(error.sys_errno)) : detail)",
                    kind: .unavailable(retryable: true))
            }
        }
    }

    /// Calls `body` with a C array of C strings that live for the duration of the call.
    private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let duplicates = strings.map { strdup($0) }
        defer { for duplicate in duplicates { free(duplicate) } }
        return body(duplicates.map { UnsafePointer($0) })
    }
#endif
