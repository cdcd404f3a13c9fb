/** Rows of every pipe table in a markdown text, as trimmed cells (header and rule rows included). */
export function tableRows(markdown: string): string[][] {
  const rows: string[][] = [];
  for (const line of markdown.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('|') || !t.endsWith('|')) continue;
    // Split on pipes that are not escaped as \| (messages may contain them).
    const cells = t.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
    rows.push(cells);
  }
  return rows;
}

/** The text inside a cell's backticks, or the cell itself. */
export function unquote(cell: string): string {
  const m = /^`([^`]*)`$/.exec(cell);
  return m ? m[1] : cell;
}
