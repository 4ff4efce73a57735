// Upload with a progress bar: check the size before sending, send with XHR so
// the bar can follow the bytes, then go to the new run's page; show the
// server's validation errors (bad archive, too large) next to the field.
(function () {
  const form = document.getElementById("upload-form");
  if (!form || !window.XMLHttpRequest || !window.FormData) return;
  const input = form.querySelector("input[type=file]");
  const box = document.getElementById("upload-progress");
  const bar = box.querySelector(".bar");
  const text = document.getElementById("upload-text");
  const errorBox = document.getElementById("upload-error");
  const button = form.querySelector("button[type=submit]");
  const maxBytes = Number(form.dataset.maxBytes || 0);
  const mib = (n) => (n / 1048576).toFixed(1) + " MiB";

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = false;
    box.hidden = true;
    button.disabled = false;
  }

  function setProgress(percent, label) {
    bar.setAttribute("aria-valuenow", String(percent));
    bar.firstElementChild.style.width = percent + "%";
    text.textContent = label;
  }

  function tooBig() {
    const file = input.files && input.files[0];
    if (file && maxBytes && file.size > maxBytes) {
      showError(`The archive is ${mib(file.size)}; the limit is ${mib(maxBytes)}.`);
      return true;
    }
    return false;
  }

  input.addEventListener("change", () => { errorBox.hidden = true; tooBig(); });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    errorBox.hidden = true;
    for (const list of form.querySelectorAll("[data-errors-for]")) list.innerHTML = "";
    if (!input.files || !input.files[0]) { showError("Choose an archive to upload."); return; }
    if (tooBig()) return;
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action || window.location.href);
    xhr.setRequestHeader("X-Requested-With", "XMLHttpRequest");
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) {
        const percent = Math.round((100 * e.loaded) / e.total);
        setProgress(percent, `${mib(e.loaded)} of ${mib(e.total)} sent`);
      }
    });
    xhr.addEventListener("load", () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
      if (xhr.status === 200 && data && data.ok) {
        setProgress(100, "Uploaded; opening the run…");
        window.location = data.url;
        return;
      }
      if (data && data.errors) {
        const messages = [];
        for (const [field, errors] of Object.entries(data.errors)) {
          const list = form.querySelector(`[data-errors-for="${field}"]`);
          if (list) list.innerHTML = errors.map((e) => `<li>${e.replace(/[<>&]/g, "")}</li>`).join("");
          messages.push(...errors);
        }
        showError("The upload was refused: " + messages.join(" "));
      } else if (xhr.status === 413) {
        showError("The server refused the upload: it is too large.");
      } else {
        showError(`The upload failed (HTTP ${xhr.status}). Try again.`);
      }
    });
    xhr.addEventListener("error", () => showError("The upload failed: the connection was interrupted."));
    box.hidden = false;
    button.disabled = true;
    setProgress(0, "Starting upload…");
    xhr.send(new FormData(form));
  });
})();
