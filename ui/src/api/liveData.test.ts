import { describe, expect, it } from "vitest";
import type { ApiMethod } from "./generated";
import { ALL_KINDS, kindsOfEvent, kindsOfMethod, versionOf } from "./liveData";

describe("which data a page follows", () => {
  it("ties methods to the kinds of data they show", () => {
    const m = (name: ApiMethod) => kindsOfMethod(name);
    expect(m("review.show")).toContain("reviews");
    expect(m("review.show")).not.toContain("models");
    expect(m("results.overview")).toEqual(expect.arrayContaining(["results", "runs"]));
    expect(m("evaluation.list")).toContain("runs");
    expect(m("cards.list")).toContain("cards");
    expect(m("models.list")).toEqual(["models"]);
    expect(m("generation.list")).toEqual(expect.arrayContaining(["runs", "cases"]));
  });

  it("follows every kind for a method it does not know", () => {
    expect(kindsOfMethod("store.info")).toEqual(ALL_KINDS);
    expect(kindsOfMethod("something.new")).toEqual(ALL_KINDS);
  });

  it("reads the kinds of a change event and ignores what it does not know", () => {
    expect(kindsOfEvent('{"kinds":["reviews","runs"]}')).toEqual(["reviews", "runs"]);
    expect(kindsOfEvent('{"kinds":["reviews","weather"]}')).toEqual(["reviews"]);
    expect(kindsOfEvent('{"kinds":"reviews"}')).toEqual([]);
    expect(kindsOfEvent("not json")).toEqual([]);
  });

  it("moves a page's version only for the kinds it follows", () => {
    const counts = new Map([["reviews", 2], ["models", 5]] as const);
    const before = versionOf(counts, kindsOfMethod("review.show"));
    const after = versionOf(new Map([["reviews", 2], ["models", 6]] as const), kindsOfMethod("review.show"));
    expect(after).toBe(before);
    const moved = versionOf(new Map([["reviews", 3], ["models", 5]] as const), kindsOfMethod("review.show"));
    expect(moved).toBe(before + 1);
  });
});
