// Ground-truth page: while a run is queued or running, poll the runs API every 2 s and update
// the rows in place. Text only (textContent), never HTML. Without JavaScript the page shows the
// state at load time and a reload link.
(function () {
  "use strict";
  const table = document.getElementById("runs");
  if (!table) return;
  const url = table.dataset.runsUrl;
  const status = document.getElementById("runs-status");
  const labels = { queued: "Queued", running: "Running", done: "Done", unchanged: "Nothing new to compute", failed: "Failed" };
  const waiting = (state) => state === "queued" || state === "running";

  function update(row, run) {
    row.dataset.status = run.status;
    row.querySelector("[data-field=status]").textContent = labels[run.status] || run.status;
    row.querySelector("[data-field=stage]").textContent = run.error ? run.stage + " — " + run.error : run.stage;
    row.querySelector("[data-field=bar]").value = run.progress;
    row.querySelector("[data-field=percent]").textContent = Math.round(run.progress * 100) + " %";
    row.querySelector("[data-field=snapshot]").textContent = run.snapshot_version ? "version " + run.snapshot_version : "—";
  }

  function announce(text) {
    if (!status) return;
    status.textContent = text + " ";
    const link = document.createElement("a");
    link.href = window.location.pathname;
    link.textContent = "Reload the page";
    status.appendChild(link);
  }

  async function poll() {
    let again = false;
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (!response.ok) throw new Error(response.status);
      const body = await response.json();
      for (const run of body.results) {
        const row = document.getElementById("run-" + run.id);
        if (!row) {
          if (waiting(run.status)) again = true;
          continue;
        }
        const before = row.dataset.status;
        update(row, run);
        if (waiting(run.status)) again = true;
        else if (waiting(before)) {
          announce(run.snapshot_version ? "Run " + run.id + " wrote version " + run.snapshot_version + "." : "Run " + run.id + " finished: " + run.stage + ".");
        }
      }
    } catch (error) {
      again = true; // a network blip: keep trying
    }
    if (again) window.setTimeout(poll, 2000);
  }

  if (table.querySelector('[data-status="queued"], [data-status="running"]')) window.setTimeout(poll, 2000);
})();
