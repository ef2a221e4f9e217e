import PostgresNIO

extension PostgresRowSequence {
    /// Reads every row and returns how many there were: the rows a statement ending in
    /// `RETURNING 1` changed, or whether a `SELECT 1 ...` found anything.
    func count() async throws -> Int {
        var rows = 0
        for try await _ in self { rows += 1 }
        return rows
    }
}
