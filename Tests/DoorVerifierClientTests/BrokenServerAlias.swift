import KeypadTestSupport

/// The deliberately broken server of these tests is the shared recording server.
typealias BrokenHTTPServer = RecordingHTTPServer
