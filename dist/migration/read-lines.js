/**
 * Splits a byte stream into numbered text lines, pulling chunks with `for await` so that the
 * producer (a file, a tar entry) is paused while the consumer writes: memory stays bounded by
 * one chunk plus one line, whatever the size of the file. UTF-8 sequences split across chunks
 * are decoded whole (StringDecoder); `\r\n` endings lose their `\r`.
 */
import { StringDecoder } from 'node:string_decoder';
/** Longest line accepted (one exported object); longer is a broken or hostile file. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** The lines of a stream of bytes (a last line without a newline is included). */
export async function* readLines(stream) {
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let n = 0;
    let skipping = false;
    for await (const chunk of stream) {
        const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
        let start = 0;
        for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
            n++;
            const line = text.slice(start, nl);
            start = nl + 1;
            if (skipping) {
                skipping = false;
                yield { n, text: '', tooLong: true };
            }
            else {
                yield { n, text: line.endsWith('\r') ? line.slice(0, -1) : line };
            }
        }
        rest = text.slice(start);
        if (rest.length > MAX_LINE_BYTES) {
            // Drop the line's text but keep counting, so later line numbers stay right.
            skipping = true;
            rest = '';
        }
    }
    rest += decoder.end();
    if (skipping)
        yield { n: n + 1, text: '', tooLong: true };
    else if (rest.length)
        yield { n: n + 1, text: rest.endsWith('\r') ? rest.slice(0, -1) : rest };
}
//# sourceMappingURL=read-lines.js.map