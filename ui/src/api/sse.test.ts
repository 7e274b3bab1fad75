import { describe, expect, it } from "vitest";
import { readEventStream, SseEvent, SseParser } from "./sse";

describe("the event stream reader", () => {
  it("reads progress events and skips keep-alive comments", () => {
    const p = new SseParser();
    const text = ': keep-alive\n\nevent: progress\ndata: {"done":1}\n\nevent: progress\ndata:{"done":2}\n\n';
    expect(p.push(text)).toEqual([
      { event: "progress", data: '{"done":1}' },
      { event: "progress", data: '{"done":2}' },
    ]);
  });

  it("joins events split across pieces, at any point, with any line end", () => {
    const whole = "event: progress\r\ndata: a\r\ndata: b\r\n\r\nevent: progress\rdata: c\r\rdata: d\n\n";
    for (let cut = 0; cut <= whole.length; cut++) {
      const p = new SseParser();
      const got = [...p.push(whole.slice(0, cut)), ...p.push(whole.slice(cut))];
      expect(got, `cut at ${cut}`).toEqual([
        { event: "progress", data: "a\nb" },
        { event: "progress", data: "c" },
        { event: "message", data: "d" },
      ]);
    }
  });

  it("drops an event without data and an unfinished one", () => {
    const p = new SseParser();
    expect(p.push("event: progress\n\nevent: progress\ndata: x")).toEqual([]);
    expect(p.push("\n")).toEqual([]);
    expect(p.push("\n")).toEqual([{ event: "progress", data: "x" }]);
  });

  it("reads a response body to its end, characters split across chunks included", async () => {
    const bytes = new TextEncoder().encode('event: progress\ndata: {"label":"é"}\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        // Split inside the two bytes of "é".
        const at = bytes.indexOf(0xc3) + 1;
        c.enqueue(bytes.slice(0, at));
        c.enqueue(bytes.slice(at));
        c.close();
      },
    });
    const seen: SseEvent[] = [];
    await readEventStream(body, (e) => seen.push(e));
    expect(seen).toEqual([{ event: "progress", data: '{"label":"é"}' }]);
  });
});
