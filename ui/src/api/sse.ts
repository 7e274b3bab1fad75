// Server-sent events read with `fetch`, so the request can carry the owner's key in an
// `Authorization` header (the browser's `EventSource` cannot send headers). Only what the
// server's `/api/events` uses is read: `event:` and `data:` fields, comments (keep-alive) and
// the three kinds of line end; `id:` and `retry:` are ignored.

export type SseEvent = { event: string; data: string };

/** Turns pieces of an event stream's text into whole events. */
export class SseParser {
  private buf = "";
  private data: string[] = [];
  private event = "";

  /** Add the next piece of text; returns the events it completed. */
  push(text: string): SseEvent[] {
    this.buf += text;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buf);
      if (!m) break;
      // A `\r` at the very end may be the first half of `\r\n`: wait for the next piece.
      if (m[0] === "\r" && m.index === this.buf.length - 1) break;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    return out;
  }

  private line(line: string): SseEvent | null {
    if (line === "") {
      // A blank line ends an event; one without data is dropped.
      const ev = this.data.length ? { event: this.event || "message", data: this.data.join("\n") } : null;
      this.data = [];
      this.event = "";
      return ev;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    return null;
  }
}

/** Read a response body as an event stream until it ends, handing each event to `onEvent`. */
export async function readEventStream(body: ReadableStream<Uint8Array>, onEvent: (e: SseEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const e of parser.push(decoder.decode(value, { stream: true }))) onEvent(e);
    }
  } finally {
    reader.releaseLock();
  }
}
