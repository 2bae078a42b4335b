// oneworks session serve: live updates over Server-Sent Events, answers
// without leaving the page, and a notification when a card arrives while
// the tab is hidden. The page works without this file (plain forms).
"use strict";
(function () {
  var refreshing = false, again = false;

  // Replace the sessions with the server's current rendering (the server
  // escaped every value; nothing here builds HTML from agent text).
  function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    fetch("/", { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (!text) return;
        var fresh = new DOMParser().parseFromString(text, "text/html");
        ["sessions", "status"].forEach(function (id) {
          var now = document.getElementById(id), next = fresh.getElementById(id);
          if (now && next) now.replaceWith(document.importNode(next, true));
        });
        tick();
      })
      .finally(function () {
        refreshing = false;
        if (again) { again = false; refresh(); }
      });
  }

  // "raised 42 s ago", "waiting 3 min": every <time> ticks.
  function tick() {
    var now = Date.now();
    document.querySelectorAll("time.since, time.wait").forEach(function (node) {
      var then = Date.parse(node.getAttribute("datetime"));
      if (isNaN(then)) return;
      var s = Math.max(0, Math.round((now - then) / 1000));
      var text = s < 120 ? s + " s" : Math.round(s / 60) + " min";
      node.textContent = node.classList.contains("since") ? text + " ago" : text;
    });
  }

  // Answer through the JSON API; the event stream shows what follows.
  document.addEventListener("submit", function (event) {
    var form = event.target, button = event.submitter;
    var match = /^\/cards\/([^/]+)\/answer$/.exec(form.getAttribute("action") || "");
    if (!match || !button) return;
    event.preventDefault();
    form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    var card = form.closest("[data-card]");
    if (card) {
      card.setAttribute("data-state", "delivering");
      var state = card.querySelector(".card-state");
      if (state) state.textContent = "delivering";
    }
    fetch("/api/cards/" + match[1] + "/answer", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action: button.value })
    }).finally(refresh);
  });

  var notify = document.getElementById("notify");
  if (notify && "Notification" in window && Notification.permission === "default") {
    notify.hidden = false;
    notify.addEventListener("click", function () {
      Notification.requestPermission().then(function () { notify.hidden = true; });
    });
  }

  function announce(change) {
    var card = change.card;
    if (!card || card.state !== "pending" || !document.hidden) return;
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    new Notification("Approval needed in " + change.session, { body: card.title, tag: card.id });
  }

  if ("EventSource" in window) {
    var source = new EventSource("/events");
    source.addEventListener("change", function (event) {
      try { announce(JSON.parse(event.data)); } catch (e) { /* ignore */ }
      refresh();
    });
    source.addEventListener("open", refresh);
  }
  tick();
  setInterval(tick, 1000);
})();
