// paramine viewer: clicking a sentence highlights its bead on both sides and the aligned tree
// node pair it came from; clicking a node pair highlights its beads.
(function () {
  "use strict";
  function clear() {
    document.querySelectorAll(".bead.active, .node.active").forEach(function (el) {
      el.classList.remove("active");
    });
  }
  function mark(selector) {
    var found = document.querySelectorAll(selector);
    found.forEach(function (el) { el.classList.add("active"); });
    return found;
  }
  document.addEventListener("click", function (event) {
    var bead = event.target.closest(".bead");
    if (bead) {
      var wasActive = bead.classList.contains("active");
      clear();
      if (wasActive) return;
      var position = bead.dataset.bead;
      mark('.bead[data-bead="' + CSS.escape(position) + '"]').forEach(function (el) {
        if (el !== bead) el.scrollIntoView({ block: "nearest" });
      });
      mark('.node[data-chunk="' + CSS.escape(bead.dataset.chunk) + '"]');
      return;
    }
    var node = event.target.closest(".node");
    if (node) {
      var nodeWasActive = node.classList.contains("active");
      clear();
      if (nodeWasActive) return;
      node.classList.add("active");
      var beads = mark('.bead[data-chunk="' + CSS.escape(node.dataset.chunk) + '"]');
      if (beads.length) beads[0].scrollIntoView({ block: "nearest" });
    }
  });
})();
