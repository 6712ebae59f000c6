// Served by `referee ladder serve`, the page follows the ladder: it reloads itself now and then.
// Opened from file:// it stays as it is (the site is rewritten in place; reload by hand).
if (location.protocol === "http:" || location.protocol === "https:") {
  setTimeout(function () { location.reload(); }, 15000);
}
