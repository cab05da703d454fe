// Ground-truth page: while a job is queued or running, poll the jobs API every 2 s and update
// the rows in place. Text only (textContent), never HTML. Without JavaScript the page shows the
// state at load time and a reload link.
(function () {
  "use strict";
  const table = document.getElementById("jobs");
  if (!table) return;
  const url = table.dataset.jobsUrl;
  const status = document.getElementById("jobs-status");
  const labels = { queued: "Queued", running: "Running", done: "Done", unchanged: "Nothing new to compute", failed: "Failed" };
  const waiting = (state) => state === "queued" || state === "running";

  function update(row, job) {
    row.dataset.status = job.status;
    row.querySelector("[data-field=status]").textContent = labels[job.status] || job.status;
    row.querySelector("[data-field=stage]").textContent = job.error ? job.stage + " — " + job.error : job.stage;
    row.querySelector("[data-field=bar]").value = job.progress;
    row.querySelector("[data-field=percent]").textContent = Math.round(job.progress * 100) + " %";
    row.querySelector("[data-field=snapshot]").textContent = job.snapshot_version ? "version " + job.snapshot_version : "—";
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
      for (const job of body.results) {
        const row = document.getElementById("job-" + job.id);
        if (!row) {
          if (waiting(job.status)) again = true;
          continue;
        }
        const before = row.dataset.status;
        update(row, job);
        if (waiting(job.status)) again = true;
        else if (waiting(before)) {
          announce(job.snapshot_version ? "Job " + job.id + " wrote version " + job.snapshot_version + "." : "Job " + job.id + " finished: " + job.stage + ".");
        }
      }
    } catch (error) {
      again = true; // a network blip: keep trying
    }
    if (again) window.setTimeout(poll, 2000);
  }

  if (table.querySelector('[data-status="queued"], [data-status="running"]')) window.setTimeout(poll, 2000);
})();
