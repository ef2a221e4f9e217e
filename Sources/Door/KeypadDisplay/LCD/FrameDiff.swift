/// Which cells of a character display must be rewritten to go from one frame to the next:
/// runs of changed cells per row. Runs separated by a single unchanged cell are merged,
/// since rewriting one cell costs the same as moving the cursor.
public enum FrameDiff {
    public struct Run: Equatable, Sendable {
        public let row: Int
        public let column: Int
        public let codes: [UInt8]
    }

    /// With no previous frame every row is one run.
    public static func runs(from old: [[UInt8]]?, to new: [[UInt8]]) -> [Run] {
        guard let old, old.count == new.count else {
            return new.enumerated().map { Run(row: $0.offset, column: 0, codes: $0.element) }
        }
        var runs: [Run] = []
        for (row, cells) in new.enumerated() {
            let before = old[row]
            func changed(_ column: Int) -> Bool { column >= before.count || before[column] != cells[column] }
            var column = 0
            while column < cells.count {
                guard changed(column) else {
                    column += 1
                    continue
                }
                var end = column + 1
                while end < cells.count && (changed(end) || (end + 1 < cells.count && changed(end + 1))) {
                    end += 1
                }
                runs.append(Run(row: row, column: column, codes: Array(cells[column..<end])))
                column = end
            }
        }
        return runs
    }
}
