import { describe, expect, it } from "vitest";
import { sortRows, visibleRange, type Column } from "./components/DataTable";
import { breakParts, duration, humanize, plural, pct, tokens, usd, verdictKey } from "./format";
import { href, parseHash } from "./router";
import { base64ToBytes, bytesToBase64 } from "./api/files";

describe("formatting", () => {
  it("wraps long ids after separators and between CamelCase words, losing nothing", () => {
    const id = "demo_CareManagement_1_MedicationError_complete_1";
    expect(breakParts(id)).toEqual(["demo_", "Care", "Management_", "1_", "Medication", "Error_", "complete_", "1"]);
    expect(breakParts(id).join("")).toBe(id);
    expect(breakParts("gpt-4o")).toEqual(["gpt-", "4o"]);
    expect(breakParts("short")).toEqual(["short"]);
  });
  it("writes counts with the right form of the noun", () => {
    expect(plural(1, "run")).toBe("1 run");
    expect(plural(2, "run")).toBe("2 runs");
    expect(plural(0, "case")).toBe("0 cases");
    expect(plural(3, "failed try", "failed tries")).toBe("3 failed tries");
    expect(plural(1200, "case")).toBe("1,200 cases");
  });
  it("shows undefined numbers as a dash and percentages with one decimal", () => {
    expect(pct(null)).toBe("–");
    expect(pct(94.56)).toBe("94.6");
    expect(usd(null)).toBe("unknown");
    expect(usd(0.004)).toBe("< $0.01");
    expect(tokens(1_534_000)).toBe("1.5M");
    expect(duration(3725)).toBe("1 h 2 min");
    expect(humanize("patient_death_or_serious_injury")).toBe("patient death or serious injury");
  });
  it("normalises every verdict spelling", () => {
    expect(verdictKey("Non_Reportable")).toBe("Non-reportable");
    expect(verdictKey("Non-reportable")).toBe("Non-reportable");
    expect(verdictKey("Missing")).toBe("Missing information");
    expect(verdictKey("reportable")).toBe("none");
    expect(verdictKey(null)).toBe("none");
  });
});

describe("routing", () => {
  it("parses paths and queries and builds links", () => {
    const r = parseHash("#/cards/CardRep_1_X?tab=history&v=2");
    expect(r.parts).toEqual(["cards", "CardRep_1_X"]);
    expect(r.query.get("tab")).toBe("history");
    expect(parseHash("").path).toBe("/");
    expect(href("/results", { runs: "a,b", x: undefined })).toBe("#/results?runs=a%2Cb");
    expect(href("/cards", "a b")).toBe("#/cards/a%20b");
  });
});

describe("tables", () => {
  type R = { name: string; score: number | null };
  const cols: Column<R>[] = [
    { key: "name", header: "Name", render: (r) => r.name, sort: (r) => r.name },
    { key: "score", header: "Score", render: (r) => r.score, sort: (r) => r.score },
  ];
  const rows: R[] = [{ name: "b", score: 2 }, { name: "a10", score: null }, { name: "a9", score: 5 }];
  it("sorts numbers numerically with nulls last in both directions", () => {
    expect(sortRows(rows, cols, { key: "score", dir: "asc" }).map((r) => r.name)).toEqual(["b", "a9", "a10"]);
    expect(sortRows(rows, cols, { key: "score", dir: "desc" }).map((r) => r.name)).toEqual(["a9", "b", "a10"]);
    expect(sortRows(rows, cols, { key: "name", dir: "asc" }).map((r) => r.name)).toEqual(["a9", "a10", "b"]);
  });
  it("renders only the visible window of a long list", () => {
    expect(visibleRange(0, 400, 40, 10_000, 5)).toEqual([0, 15]);
    expect(visibleRange(40_000, 400, 40, 10_000, 5)).toEqual([995, 1015]);
    expect(visibleRange(399_600, 400, 40, 10_000, 5)).toEqual([9985, 10_000]);
  });
});

describe("uploads", () => {
  it("round-trips bytes through base64, including non-UTF-8 bytes", () => {
    const bytes = new Uint8Array([0, 255, 128, 10, 13, 0xc3, 0x28]);
    expect(Array.from(base64ToBytes(bytesToBase64(bytes)))).toEqual(Array.from(bytes));
  });
});
