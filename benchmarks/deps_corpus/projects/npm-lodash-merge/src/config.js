// Merges tenant overrides (PUT /config, JSON body) over the defaults.
const http = require("http");
const _ = require("lodash");

const DEFAULTS = { theme: "light", limits: { exports: 10 } };

http
  .createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const config = _.merge({}, DEFAULTS, JSON.parse(body));
      res.end(JSON.stringify(config));
    });
  })
  .listen(8080);
