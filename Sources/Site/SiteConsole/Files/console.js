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
      cell(row, door.door); cell(row, door.keypad); cell(row, door.tamper); cell(row, door.mode); cell(row, door.lockedOut); cell(row, door.lastDecision);
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
