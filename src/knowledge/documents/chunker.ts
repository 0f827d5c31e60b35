export interface Chunk {
  index: number;
  heading: string | null;
  content: string;
}

/**
 * Splits a text or markdown document into chunks of about `chunkSize` characters: paragraphs first, then
 * sentences, then a hard cut. A markdown heading starts a new chunk and is kept as the chunk's `heading`;
 * consecutive chunks of one section share about `overlap` characters.
 */
export function chunkText(text: string, chunkSize = 800, overlap = 120): Chunk[] {
  const chunks: Chunk[] = [];
  let heading: string | null = null;
  let current = '';
  const flush = () => {
    const content = current.trim();
    if (content) chunks.push({ index: chunks.length, heading, content });
    current = '';
  };
  for (const block of text.replace(/\r\n/g, '\n').split(/\n\s*\n/)) {
    const h = block.trim().match(/^#{1,6}\s+(.+)$/m);
    if (h && block.trim().startsWith('#')) {
      flush();
      heading = h[1].trim();
      const rest = block.trim().split('\n').slice(1).join('\n');
      if (rest.trim()) current = rest.trim();
      continue;
    }
    for (const piece of splitLong(block.trim(), chunkSize)) {
      if (current && current.length + piece.length + 2 > chunkSize) {
        const tail = current.slice(-overlap);
        flush();
        current = overlap > 0 ? `${tail.slice(tail.indexOf(' ') + 1)}\n\n` : '';
      }
      current += (current && !current.endsWith('\n\n') ? '\n\n' : '') + piece;
    }
  }
  flush();
  return chunks;
}

/** A paragraph longer than `size` split at sentence ends (Korean `다.` too), else hard. */
function splitLong(paragraph: string, size: number): string[] {
  if (paragraph.length <= size) return paragraph ? [paragraph] : [];
  const sentences = paragraph.match(/[^.!?。]+(?:[.!?。]+|$)\s*/g) ?? [paragraph];
  const out: string[] = [];
  let buf = '';
  for (const s of sentences) {
    if (buf && buf.length + s.length > size) {
      out.push(buf.trim());
      buf = '';
    }
    if (s.length > size) {
      for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size).trim());
    } else buf += s;
  }
  if (buf.trim()) out.push(buf.trim());
  return out;
}
