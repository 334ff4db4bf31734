// Layout helpers for the dashboard: rows of widgets and a debounced resize.
import _ from "lodash";

export function rows(widgets, perRow) {
  return _.chunk(widgets, perRow);
}

export function summary(widget) {
  return _.pick(widget, ["id", "title", "size"]);
}

export const onResize = _.debounce((layout) => layout.reflow(), 200);
