/// Lays out the slot row: one cell per slot, separated by spaces when they fit, without
/// separators when they do not, and scrolled (keeping the cursor visible) when even that
/// is too wide. Cells are never silently dropped from the end.
public enum SlotRow {
    public static func layout(cells: [Character], cursor: Int, columns: Int) -> String {
        if cells.count * 2 - 1 <= columns {
            return String(cells.map(String.init).joined(separator: " "))
        }
        if cells.count <= columns {
            return String(cells)
        }
        // Scroll: a window of `columns` cells that contains the cursor.
        let end = min(max(cursor + 1, columns), cells.count)
        return String(cells[(end - columns)..<end])
    }
}
