const assert = require("assert");
const report = require("../src/report");

describe("report", () => {
  it("names the week", () => {
    assert.strictEqual(report(3, 12), "Week 3: 12 orders");
  });
});
