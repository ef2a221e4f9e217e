import CQRCode
import Foundation

/// A QR code made by libqrencode (loaded at run time, see `CQRCode`), as a module matrix
/// and as inline SVG for a page (no script, no external image: the console's CSP allows it).
public struct QRCodeImage: Sendable {
    public let width: Int
    /// `width * width` modules, row by row; true is dark.
    public let modules: [Bool]

    /// Why a QR code could not be made (libqrencode missing, text too long).
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public init(encoding text: String) throws {
        var pointer: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var error = [CChar](repeating: 0, count: 300)
        let status = kp_qr_encode(text, &pointer, &width, &error, error.count)
        guard status == 0, let pointer else {
            throw Unavailable(description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { free(pointer) }
        self.width = Int(width)
        modules = (0..<Int(width) * Int(width)).map { pointer[$0] != 0 }
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// The code as SVG with a 4-module quiet zone, one path of unit squares.
    public var svg: String {
        var path = ""
        for y in 0..<width {
            for x in 0..<width where isDark(x: x, y: y) { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        let size = width + 8
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size) \(size)\" width=\"\(size * 6)\" height=\"\(size * 6)\" "
            + "shape-rendering=\"crispEdges\" role=\"img\" aria-label=\"QR code\"><rect width=\"\(size)\" height=\"\(size)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(path)\"/></svg>"
    }
}
