/// The console's one stylesheet and one script, served from `/console/static/` (the
/// Content-Security-Policy allows only these): plain CSS readable on a phone, and the
/// script that keeps the Doors and Who entered pages live by short polling. It builds rows
/// with `textContent`, never HTML from data.
enum ConsoleAssets {
    static let css = """
        :root { font-family: system-ui, sans-serif; color: #1b1b1b; background: #f6f6f4; }
        body { margin: 0; }
        header { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; background: #23313f; padding: .4rem .8rem; }
        nav a { color: #fff; margin-right: 1rem; text-decoration: none; }
        nav a[aria-current=page] { text-decoration: underline; font-weight: bold; }
        .logout button { background: none; color: #fff; border: 1px solid #fff; border-radius: 4px; }
        main { padding: .8rem; max-width: 70rem; }
        h1 { font-size: 1.4rem; margin: .3rem 0 .8rem; }
        table { border-collapse: collapse; width: 100%; background: #fff; font-size: .95rem; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
        tr.alerting { background: #fde2e1; }
        .alert { display: block; color: #a40e0e; font-weight: bold; }
        .alert.acknowledged { color: #666; font-weight: normal; }
        .offline { color: #a40e0e; }
        .online { color: #1d6b2a; }
        .card { background: #fff; padding: .8rem; border: 1px solid #ddd; border-radius: 6px; display: grid; gap: .5rem; max-width: 28rem; }
        label { display: grid; gap: .2rem; }
        .filters, .search { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin-bottom: .8rem; }
        .actions form { display: inline; }
        .notice { background: #e3f4e6; padding: .5rem; }
        .error { background: #fde2e1; padding: .5rem; }
        .qr svg { max-width: 100%; height: auto; }
        .code { font-size: 2.4rem; letter-spacing: .3rem; font-family: monospace; }
        .hint { color: #555; }
        tr.denied td:nth-child(4) { color: #a40e0e; }
        tr.granted td:nth-child(4) { color: #1d6b2a; }
        @media (max-width: 40rem) { th:nth-child(n+5), td:nth-child(n+5) { display: none; } #doors th, #doors td { display: table-cell; } }
        @media print { header, form, .hint { display: none; } .printable { border: none; } }
        """

    static let javascript = """
        'use strict';
        (function () {
          var page = document.body.getAttribute('data-page');
          var csrfInput = document.querySelector('form.logout input[name=csrf]');
          var csrf = csrfInput ? csrfInput.value : '';
          function cell(row, text, cls) {
            var td = document.createElement('td');
            td.textContent = text == null ? '' : String(text);
            if (cls) td.className = cls;
            row.appendChild(td);
            return td;
          }
          function hidden(form, name, value) {
            var input = document.createElement('input');
            input.type = 'hidden'; input.name = name; input.value = value;
            form.appendChild(input);
          }
          function poll(url, render) {
            function tick() {
              fetch(url, { credentials: 'same-origin', cache: 'no-store' }).then(function (response) {
                if (response.status === 401) { window.location.assign('/console/login'); return null; }
                return response.ok ? response.json() : null;
              }).then(function (data) { if (data) render(data); }).catch(function () {});
            }
            window.setInterval(tick, 2000);
          }
          function renderDoors(data) {
            var body = document.querySelector('#doors tbody');
            if (!body) return;
            var rows = document.createDocumentFragment();
            data.doors.forEach(function (door) {
              var row = document.createElement('tr');
              row.setAttribute('data-door', door.terminal);
              if (door.alerting) row.className = 'alerting';
              cell(row, door.terminal);
              cell(row, door.lastSeen, door.online ? 'online' : 'offline');
              cell(row, door.door); cell(row, door.keypad); cell(row, door.tamper); cell(row, door.lockedOut); cell(row, door.lastDecision);
              var alerts = cell(row, '');
              door.alerts.forEach(function (alert) {
                var form = document.createElement('form');
                form.method = 'post'; form.action = '/console/doors/ack';
                form.className = alert.acknowledged ? 'alert acknowledged' : 'alert';
                hidden(form, 'csrf', csrf); hidden(form, 'door', door.terminal); hidden(form, 'alert', alert.name);
                var name = document.createElement('span');
                name.className = 'alert-name'; name.textContent = alert.name;
                form.appendChild(name);
                if (alert.acknowledged) {
                  form.appendChild(document.createTextNode(' (acknowledged by ' + alert.by + ')'));
                } else {
                  var button = document.createElement('button');
                  button.type = 'submit'; button.textContent = 'Acknowledge';
                  form.appendChild(document.createTextNode(' '));
                  form.appendChild(button);
                }
                alerts.appendChild(form);
              });
              rows.appendChild(row);
            });
            if (data.doors.length === 0) return;
            body.replaceChildren(rows);
          }
          function renderEntries(data) {
            var body = document.querySelector('#entries tbody');
            if (!body || data.rows.length === 0) return;
            var rows = document.createDocumentFragment();
            data.rows.forEach(function (entry) {
              var row = document.createElement('tr');
              row.className = entry.decision;
              cell(row, entry.time); cell(row, entry.door); cell(row, entry.user); cell(row, entry.decision); cell(row, entry.detail);
              rows.appendChild(row);
            });
            body.replaceChildren(rows);
          }
          if (page === 'doors') poll('/console/doors.json', renderDoors);
          var entries = document.getElementById('entries');
          if (page === 'entries' && entries && entries.getAttribute('data-live') === 'true') {
            poll('/console/entries.json?' + entries.getAttribute('data-query'), renderEntries);
          }
          document.querySelectorAll('form.danger').forEach(function (form) {
            form.addEventListener('submit', function (event) {
              if (!window.confirm('Remove this user and everything of theirs?')) event.preventDefault();
            });
          });
        })();
        """
}
