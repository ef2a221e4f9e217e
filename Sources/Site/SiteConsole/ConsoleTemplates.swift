import Mustache

/// The console's pages as Mustache templates. `{{name}}` is HTML-escaped; only `{{{body}}}`
/// (a page already rendered, so already escaped) is not. No inline script or style: the
/// Content-Security-Policy forbids them.
enum ConsoleTemplates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in all {
            // The templates are constants of this file; a parse error is a bug caught by every test.
            try! library.register(text, named: name)
        }
        return library
    }()

    static let all: [(String, String)] = [
        ("layout", layout), ("login", login), ("doors", doors), ("users", users), ("codes", codes),
        ("code-issued", codeIssued), ("totp-issued", totpIssued), ("user-edit", userEdit), ("entries", entries), ("message", message),
    ]

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · KioskPad</title>
        <link rel="stylesheet" href="/console/static/console.css">
        </head>
        <body data-page="{{page}}">
        {{#admin}}
        <header>
          <nav>
            <a href="/console/doors"{{#onDoors}} aria-current="page"{{/onDoors}}>Doors</a>
            <a href="/console/users"{{#onUsers}} aria-current="page"{{/onUsers}}>Users</a>
            <a href="/console/codes"{{#onCodes}} aria-current="page"{{/onCodes}}>Codes</a>
            <a href="/console/entries"{{#onEntries}} aria-current="page"{{/onEntries}}>Who entered</a>
          </nav>
          <form method="post" action="/console/logout" class="logout">
            <input type="hidden" name="csrf" value="{{csrf}}">
            <button type="submit">Log out <span id="admin-name">{{admin}}</span></button>
          </form>
        </header>
        {{/admin}}
        <main>
        <h1>{{title}}</h1>
        {{#notice}}<p class="notice" role="status" id="notice">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
        {{{body}}}
        </main>
        <script src="/console/static/console.js"></script>
        </body>
        </html>
        """

    static let login = """
        <form method="post" action="/console/login" class="card" id="login">
          <input type="hidden" name="login_token" value="{{loginToken}}">
          <label>Administrator <input name="name" autocomplete="username" required autofocus></label>
          <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
          <label>Code from your authenticator app (if you use one) <input name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="8"></label>
          <button type="submit">Log in</button>
        </form>
        """

    static let doors = """
        <p class="hint">Updated every few seconds. A door is <em>silent</em> when it has not been heard from for {{silentMinutes}} minutes.</p>
        <table id="doors">
          <thead><tr><th>Door</th><th>Seen</th><th>Door</th><th>Keypad</th><th>Tamper</th><th>Locked out</th><th>Last decision</th><th>Alerts</th></tr></thead>
          <tbody>
          {{#doors}}
          <tr data-door="{{terminal}}" class="{{#alerting}}alerting{{/alerting}}">
            <td>{{terminal}}</td><td class="{{#online}}online{{/online}}{{^online}}offline{{/online}}">{{lastSeen}}</td>
            <td>{{door}}</td><td>{{keypad}}</td><td>{{tamper}}</td><td>{{lockedOut}}</td><td>{{lastDecision}}</td>
            <td>{{#alerts}}<form method="post" action="/console/doors/ack" class="alert{{#acknowledged}} acknowledged{{/acknowledged}}">
              <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="door" value="{{terminal}}"><input type="hidden" name="alert" value="{{name}}">
              <span class="alert-name">{{name}}</span>{{^acknowledged}} <button type="submit">Acknowledge</button>{{/acknowledged}}{{#acknowledged}} (acknowledged by {{by}}){{/acknowledged}}
            </form>{{/alerts}}</td>
          </tr>
          {{/doors}}
          {{^doors}}<tr class="empty"><td colspan="8">No door has reported yet. Point a terminal's <code>events.url</code> at this verifier's <code>/v1/events</code>.</td></tr>{{/doors}}
          </tbody>
        </table>
        """

    static let users = """
        <form method="get" action="/console/users" class="search">
          <label>Search <input name="q" value="{{query}}" type="search"></label> <button type="submit">Search</button>
        </form>
        <table id="users">
          <thead><tr><th>Name</th><th>Has</th><th>Doors</th><th>Schedule</th><th>Valid</th><th>State</th><th></th></tr></thead>
          <tbody>
          {{#users}}
          <tr data-user="{{name}}">
            <td class="name"><a href="/console/users/edit?name={{name}}">{{name}}</a></td><td>{{has}}</td><td>{{doors}}</td><td>{{schedule}}</td><td>{{valid}}</td><td class="state">{{state}}</td>
            <td class="actions">
              <form method="post" action="/console/users/state"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="name" value="{{name}}">
                {{#disabled}}<input type="hidden" name="state" value="enabled"><button type="submit">Enable</button>{{/disabled}}
                {{^disabled}}<input type="hidden" name="state" value="disabled"><button type="submit">Disable</button>{{/disabled}}
              </form>
              <form method="post" action="/console/users/totp" class="totp"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="name" value="{{name}}">
                <button type="submit">New TOTP</button></form>
              <form method="post" action="/console/users/remove" class="danger"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="name" value="{{name}}">
                <button type="submit">Remove</button></form>
            </td>
          </tr>
          {{/users}}
          {{^users}}<tr class="empty"><td colspan="7">No users{{#query}} match “{{query}}”{{/query}}.</td></tr>{{/users}}
          </tbody>
        </table>
        <p class="paging">{{#previous}}<a href="{{previous}}" rel="prev">Previous</a>{{/previous}} {{shown}} {{#next}}<a href="{{next}}" rel="next">Next</a>{{/next}}</p>
        <h2>Add a user</h2>
        <form method="post" action="/console/users" class="card" id="add-user">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Name <input name="name" required maxlength="64" pattern="[A-Za-z0-9._-]{1,64}"></label>
          <label>PIN <input name="pin" type="password" inputmode="numeric" autocomplete="new-password" required></label>
          <label>PIN again <input name="pin_again" type="password" inputmode="numeric" autocomplete="new-password" required></label>
          <label>Doors <input name="doors" placeholder="all doors, or e.g. front,back"></label>
          <label>Schedule <select name="schedule"><option value="always">always</option>{{#schedules}}<option>{{.}}</option>{{/schedules}}</select></label>
          <label>Valid from <input name="valid_from" placeholder="YYYY-MM-DD"></label>
          <label>Valid until <input name="valid_until" placeholder="YYYY-MM-DD"></label>
          <button type="submit">Add user</button>
        </form>
        <h2>Cards</h2>
        <form method="post" action="/console/users/cards" class="card" id="cards">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>User <input name="name" required maxlength="64"></label>
          <label>Card number <input name="card" type="password" inputmode="numeric" autocomplete="off" required></label>
          <label>Card number again <input name="card_again" type="password" inputmode="numeric" autocomplete="off" required></label>
          <label>Action <select name="action"><option value="add">add this card</option><option value="remove">remove this card</option></select></label>
          <button type="submit">Apply</button>
        </form>
        """

    static let codes = """
        <form method="post" action="/console/codes" class="card" id="issue-code">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>User <input name="user" required maxlength="64"></label>
          <label>Door <input name="door" placeholder="any door the user may open"></label>
          <label>Valid for (minutes) <input name="minutes" type="number" min="1" max="10080" value="60" required></label>
          <button type="submit">Issue code</button>
        </form>
        <h2>Unused codes</h2>
        <table id="codes">
          <thead><tr><th>User</th><th>Door</th><th>Expires</th><th></th></tr></thead>
          <tbody>
          {{#codes}}
          <tr><td>{{user}}</td><td>{{door}}</td><td>{{expires}}</td>
            <td><form method="post" action="/console/codes/revoke"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><button type="submit">Revoke</button></form></td></tr>
          {{/codes}}
          {{^codes}}<tr class="empty"><td colspan="4">No unused codes.</td></tr>{{/codes}}
          </tbody>
        </table>
        """

    static let codeIssued = """
        <div class="card printable">
          <p>One-time code for <strong>{{user}}</strong>{{#door}} at door <strong>{{door}}</strong>{{/door}}, valid until {{expires}}:</p>
          <p class="code" id="code">{{code}}</p>
          <p class="hint">It is shown only this once and kept only as a hash. Print it or pass it on now.</p>
          <p><a href="/console/codes">Back to codes</a></p>
        </div>
        """

    static let userEdit = """
        <form method="post" action="/console/users/rule" class="card" id="edit-user">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <input type="hidden" name="name" value="{{name}}">
          <p>Where and when <strong>{{name}}</strong> may enter. Empty doors: every door.</p>
          <label>Doors <input name="doors" value="{{doors}}" placeholder="all doors, or e.g. front,back"></label>
          <label>Schedule <select name="schedule"><option value="always">always</option>{{#schedules}}<option{{#selected}} selected{{/selected}}>{{name}}</option>{{/schedules}}</select></label>
          <label>Valid from <input name="valid_from" value="{{validFrom}}" placeholder="YYYY-MM-DD"></label>
          <label>Valid until <input name="valid_until" value="{{validUntil}}" placeholder="YYYY-MM-DD"></label>
          <button type="submit">Save</button>
          <p><a href="/console/users?q={{name}}">Back to users</a></p>
        </form>
        """

    static let totpIssued = """
        <div class="card printable">
          <p>New TOTP secret for <strong>{{user}}</strong>: scan it with an authenticator app now. It replaces any earlier one.</p>
          {{#qr}}<div class="qr" id="qr">{{{qr}}}</div>{{/qr}}
          {{#qrError}}<p class="error">No QR code: {{qrError}}. Type the key below into the app instead.</p>{{/qrError}}
          <p>Key: <code id="totp-key">{{key}}</code></p>
          <p class="hint">It is shown only this once and kept only in the verifier's database. The user then types the app's 6 digits as a code.</p>
          <p><a href="/console/users">Back to users</a></p>
        </div>
        """

    static let entries = """
        <form method="get" action="/console/entries" class="filters">
          <label>Door <input name="door" value="{{door}}"></label>
          <label>User <input name="user" value="{{user}}"></label>
          <label>Decision <select name="decision">
            <option value="">any</option>{{#decisions}}<option{{#selected}} selected{{/selected}}>{{name}}</option>{{/decisions}}
          </select></label>
          <label>From <input name="from" value="{{from}}" placeholder="YYYY-MM-DD or YYYY-MM-DD HH:MM"></label>
          <label>Until <input name="until" value="{{until}}" placeholder="YYYY-MM-DD or YYYY-MM-DD HH:MM"></label>
          <button type="submit">Filter</button> <a href="{{csv}}" id="csv">CSV</a>
        </form>
        <table id="entries" data-live="{{live}}" data-query="{{query}}">
          <thead><tr><th>Time</th><th>Door</th><th>User</th><th>Decision</th><th>Detail</th></tr></thead>
          <tbody>
          {{#rows}}<tr class="{{decision}}"><td>{{time}}</td><td>{{door}}</td><td>{{user}}</td><td>{{decision}}</td><td>{{detail}}</td></tr>{{/rows}}
          {{^rows}}<tr class="empty"><td colspan="5">Nothing yet.</td></tr>{{/rows}}
          </tbody>
        </table>
        <p class="paging">{{#previous}}<a href="{{previous}}" rel="prev">Newer</a>{{/previous}} {{#next}}<a href="{{next}}" rel="next">Older</a>{{/next}}</p>
        """

    static let message = """
        <p>{{text}}</p>
        {{#link}}<p><a href="{{link}}">{{linkText}}</a></p>{{/link}}
        """
}
