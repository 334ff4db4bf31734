// Search endpoint: filters arrive as nested query parameters (?filter[tag]=x).
const express = require("express");

const app = express();

app.get("/search", (req, res) => {
  // express 4 parses the query string with qs ("extended" query parser) by default.
  const filter = req.query.filter || {};
  res.json({ filter });
});

app.listen(3000);
