// paramine viewer: clicking a sentence highlights its bead on both sides.
(function () {
  "use strict";
  function select(position) {
    document.querySelectorAll(".bead.active").forEach(function (el) {
      el.classList.remove("active");
    });
    if (position === null) return;
    document.querySelectorAll('.bead[data-bead="' + CSS.escape(position) + '"]').forEach(function (el) {
      el.classList.add("active");
    });
  }
  document.addEventListener("click", function (event) {
    var bead = event.target.closest(".bead");
    if (!bead) return;
    var position = bead.dataset.bead;
    select(bead.classList.contains("active") ? null : position);
    var others = document.querySelectorAll('.bead[data-bead="' + CSS.escape(position) + '"]');
    others.forEach(function (el) {
      if (el !== bead) el.scrollIntoView({ block: "nearest" });
    });
  });
})();
