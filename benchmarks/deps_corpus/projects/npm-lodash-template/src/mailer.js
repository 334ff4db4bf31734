// Renders invoice e-mails from templates that customers edit in their settings page.
const express = require("express");
const _ = require("lodash");

const app = express();
app.use(express.json());

app.post("/preview", (req, res) => {
  // The template text comes straight from the request body.
  const render = _.template(req.body.template);
  res.send(render({ customer: req.body.customer, total: req.body.total }));
});

module.exports = app;
