/* Sortable static tables (games index, game pages, algorithm index): a header sorts its column on click, Enter or
   Space (Space does not scroll the page); a cell's data-value, when present, is the value sorted by. Rows marked
   class="reference" (human and random scores) sort with the rest by their values. No data is fetched. */
(function () {
  "use strict";

  function cellValue(row, index, type) {
    var cell = row.cells[index];
    if (!cell) return type === "number" ? NaN : "";
    var text = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (type !== "number") return text.toLowerCase();
    var value = parseFloat(text.replace(/,/g, ""));
    return isNaN(value) ? NaN : value;
  }

  function sortable(table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, index) {
      th.tabIndex = 0;
      th.setAttribute("role", "columnheader");
      function sortBy() {
        var type = th.getAttribute("data-type") || "text";
        var current = th.getAttribute("aria-sort");
        var dir = current === "descending" ? "ascending" : current === "ascending" ? "descending"
          : (type === "number" ? "descending" : "ascending");
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var sign = dir === "ascending" ? 1 : -1;
        rows.map(function (row, i) { return [cellValue(row, index, type), i, row]; }).sort(function (a, b) {
          var x = a[0], y = b[0];
          var xMissing = type === "number" ? isNaN(x) : x === "" || x === "-";
          var yMissing = type === "number" ? isNaN(y) : y === "" || y === "-";
          if (xMissing !== yMissing) return xMissing ? 1 : -1;  // missing values last either way
          if (!xMissing && x !== y) return (x < y ? -1 : 1) * sign;
          return a[1] - b[1];
        }).forEach(function (item) { body.appendChild(item[2]); });
      }
      th.addEventListener("click", sortBy);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(); }
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable-static"), sortable);
  });
}());
