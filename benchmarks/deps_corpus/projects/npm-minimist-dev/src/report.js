// Builds the weekly report; the template is part of this package, not user input.
const _ = require("lodash");

const compiled = _.template("Week <%= week %>: <%= count %> orders");

module.exports = function report(week, count) {
  return compiled({ week, count });
};
