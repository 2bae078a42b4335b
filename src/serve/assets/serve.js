// oneworks session serve: the page's script. The shell the server sends
// holds no data; this script holds the page's key, fetches the sessions'
// markup (escaped by the server), answers cards, follows the event stream
// and shows a notification when a card arrives while the tab is hidden.
//
// The key is never a cookie: a browser sends a cookie of 127.0.0.1 to every
// port of 127.0.0.1, so any other local listener it visits would get it.
// It arrives in the URL's fragment (`#token=…`, printed by serve or handed
// on by `--open`'s private file), which no request line, `Referer` or log
// carries, and leaves this page only as `Authorization: Bearer` to this
// origin.
"use strict";
(function () {
  var sessions = document.getElementById("sessions");
  if (!sessions) return;
  var KEY = "oneworks-serve-token";
  var notice = document.getElementById("notice");
  var token = null, refreshing = false, again = false, retry = 500;

  function say(text) {
    notice.textContent = text;
    notice.hidden = !text;
  }

  // sessionStorage is scoped to this origin (scheme, host and port: not
  // to every port of the host, as a cookie is) and to this tab, is never
  // sent anywhere by the browser, and dies with the tab.
  function keep(value) {
    token = value;
    try { sessionStorage.setItem(KEY, value); } catch (e) { /* kept in memory only */ }
  }
  function stored() {
    try { return sessionStorage.getItem(KEY); } catch (e) { return null; }
  }
  function forget() {
    token = null;
    try { sessionStorage.removeItem(KEY); } catch (e) { /* nothing kept */ }
  }

  function unauthorized() {
    forget();
    sessions.replaceChildren();
    document.body.setAttribute("data-auth", "refused");
    setStatus("");
    say("This page has no valid key: open the URL that `oneworks session serve` printed (serve draws a new key each time it starts).");
  }

  function setStatus(text) {
    var status = document.getElementById("status");
    if (status) status.textContent = text;
  }

  // Every call carries the key as a header, never as a cookie or in a URL.
  function api(path, options) {
    options = options || {};
    var headers = options.headers || {};
    headers.Authorization = "Bearer " + token;
    options.headers = headers;
    options.cache = "no-store";
    options.credentials = "omit";
    return fetch(path, options).then(function (response) {
      if (response.status === 401) {
        unauthorized();
        throw new Error("unauthorized");
      }
      return response;
    });
  }

  // Replace the sessions with the server's current rendering (the server
  // escaped every value; nothing here builds HTML from agent text, and
  // DOMParser runs no script).
  function refresh() {
    if (!token) return;
    if (refreshing) { again = true; return; }
    refreshing = true;
    api("/view")
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (!text) return;
        var fresh = new DOMParser().parseFromString(text, "text/html");
        ["sessions", "status"].forEach(function (id) {
          var now = document.getElementById(id), next = fresh.getElementById(id);
          if (now && next) now.replaceWith(document.importNode(next, true));
        });
        sessions = document.getElementById("sessions");
        document.body.setAttribute("data-auth", "ok");
        tick();
      })
      .catch(function () { /* the stream or the next change retries */ })
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

  // Answer through the JSON API; the event stream shows what follows. A
  // refusal (the card was answered elsewhere first) is said, not dropped.
  document.addEventListener("submit", function (event) {
    var form = event.target, button = event.submitter;
    var match = /^\/cards\/([^/]+)\/answer$/.exec(form.getAttribute("action") || "");
    if (!match) return;
    event.preventDefault();
    if (!button || !token) return;
    form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    var card = form.closest("[data-card]");
    if (card) {
      card.setAttribute("data-state", "delivering");
      var state = card.querySelector(".card-state");
      if (state) state.textContent = "delivering";
    }
    api("/api/cards/" + match[1] + "/answer", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action: button.value })
    })
      .then(function (response) {
        if (response.ok) { say(""); return; }
        return response.json().then(function (body) {
          var why = body && body.error ? body.error
            : body && body.card ? "it is " + String(body.card.state).replace(/_/g, " ") + " already"
            : "refused";
          say("Your " + button.value + " was not taken: " + why + ".");
        });
      })
      .catch(function () { /* said by unauthorized() or the next refresh */ })
      .finally(refresh);
  });

  // A session's screen, as text, on demand (textContent: never markup).
  var screen = document.getElementById("screen");
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button.pane[data-session]");
    if (!button || !token) return;
    var name = button.getAttribute("data-session");
    api("/api/sessions/" + encodeURIComponent(name) + "/pane")
      .then(function (response) { return response.json(); })
      .then(function (body) {
        screen.querySelector(".screen-title").textContent = "Screen of " + name;
        screen.querySelector("pre").textContent =
          typeof body.text === "string" ? body.text : "This session is not running.";
        screen.hidden = false;
      })
      .catch(function () { /* said by unauthorized() */ });
  });
  document.getElementById("screen-close").addEventListener("click", function () {
    screen.hidden = true;
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

  // One Server-Sent Events frame: `event: change` with one JSON `data`.
  function frame(text) {
    var name = "message", data = [];
    text.split("\n").forEach(function (line) {
      if (line === "" || line.charAt(0) === ":") return;
      var colon = line.indexOf(":");
      var field = colon < 0 ? line : line.slice(0, colon);
      var value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") name = value;
      else if (field === "data") data.push(value);
    });
    if (name !== "change" || !data.length) return;
    try { announce(JSON.parse(data.join("\n"))); } catch (e) { /* ignore */ }
    refresh();
  }

  // The event stream as a fetch stream: EventSource cannot send the
  // Authorization header. Reconnects while the key is good.
  function stream() {
    if (!token) return;
    api("/events", { headers: { Accept: "text/event-stream" } })
      .then(function (response) {
        if (!response.ok || !response.body) throw new Error("refused");
        retry = 500;
        say("");
        refresh();
        var reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        var buffer = "";
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) throw new Error("ended");
            buffer = (buffer + chunk.value).replace(/\r\n?/g, "\n");
            var frames = buffer.split("\n\n");
            buffer = frames.pop();
            frames.forEach(frame);
            return pump();
          });
        }
        return pump();
      })
      .catch(function () {
        if (!token) return;
        say("Lost the connection to serve; trying again…");
        setTimeout(stream, retry);
        retry = Math.min(retry * 2, 5000);
      });
  }

  function start() {
    document.body.setAttribute("data-auth", "pending");
    refresh();
    stream();
  }

  // The fragment leaves the address bar and this history entry at once
  // (replaceState: no new entry keeps the old URL), before anything else.
  var fragment = new URLSearchParams(location.hash.slice(1));
  if (location.hash || location.search) {
    history.replaceState(null, "", location.pathname);
  }
  // Serve's keys are 64 hex digits: anything else is refused here, never
  // sent.
  var shape = /^[0-9a-f]{64}$/;
  var given = fragment.get("token");
  if (given !== null && !shape.test(given)) given = "";
  if (given === "") {
    unauthorized();
  } else if (given) {
    keep(given);
    start();
  } else if (stored() && shape.test(stored())) {
    token = stored();
    start();
  } else {
    unauthorized();
  }
  setInterval(tick, 1000);
})();
