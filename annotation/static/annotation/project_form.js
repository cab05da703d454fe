// Shows only the configuration fields of the chosen task type.
(function () {
  "use strict";
  var select = document.getElementById("id_task_type");
  if (!select) return;
  function update() {
    document.querySelectorAll("[data-for-type]").forEach(function (field) {
      field.hidden = field.dataset.forType !== select.value;
    });
  }
  select.addEventListener("change", update);
  update();
})();
