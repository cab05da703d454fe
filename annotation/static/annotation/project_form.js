// Shows only the configuration fields of the chosen task type (their inputs say which: data-for-type).
(function () {
  "use strict";
  var select = document.getElementById("id_task_type");
  if (!select) return;
  function update() {
    document.querySelectorAll("[data-for-type]").forEach(function (input) {
      var field = input.closest(".field") || input;
      field.hidden = input.dataset.forType !== select.value;
    });
  }
  select.addEventListener("change", update);
  update();
})();
