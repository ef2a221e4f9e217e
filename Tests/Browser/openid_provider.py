#!/usr/bin/env python3
"""An OpenID Connect provider on loopback for the console's sign-in tests, built on PyPI's
pyop (IdentityPython's OpenID Provider library, on pyoidc and pyjwkest): discovery, the
authorization endpoint (Authorization Code with PKCE), the token endpoint (client_secret_basic),
the JWKS, and RP-initiated logout. pyop makes and checks the codes, the PKCE challenge and the
signed ID tokens; this file is only its web front and its people.

A person signs in at its own login form by name (no password: the test is about the console,
not the provider's login). The provider keeps them signed in with a cookie, as a real one does,
until they sign out at /end_session. Test controls (loopback only, POST): /_rotate makes a new
signing key (the JWKS then has only it), /_remove?user=NAME removes a person.

  openid_provider.py --port N --client-id ID --client-secret-file F --redirect-uri URI --post-logout-uri URI
                     --people people.json --cert CERT --key KEY
Serves https (pyop takes an https issuer only); prints "provider listening on https://127.0.0.1:N".
"""
import argparse
import json
import logging
import sys
import threading
import uuid
from urllib.parse import urlencode

from Cryptodome.PublicKey import RSA
from flask import Flask, make_response, redirect, request
from jwkest.jwk import RSAKey
from pyop.authz_state import AuthorizationState
from pyop.exceptions import InvalidAuthenticationRequest, OAuthError
from pyop.provider import Provider
from pyop.subject_identifier import HashBasedSubjectIdentifierFactory
from pyop.userinfo import Userinfo


def new_key():
    return RSAKey(key=RSA.generate(2048), alg="RS256", kid="key-" + uuid.uuid4().hex[:8])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret-file", required=True)
    parser.add_argument("--redirect-uri", required=True)
    parser.add_argument("--post-logout-uri", required=True)
    parser.add_argument("--people", required=True, help="JSON: {name: {groups: [...]}}")
    parser.add_argument("--cert", required=True, help="PEM certificate for 127.0.0.1 (OpenID Connect wants https)")
    parser.add_argument("--key", required=True)
    args = parser.parse_args()
    issuer = f"https://127.0.0.1:{args.port}"
    with open(args.people) as handle:
        people = json.load(handle)
    with open(args.client_secret_file) as handle:
        secret = handle.read().strip()
    configuration = {
        "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
        "jwks_uri": issuer + "/jwks", "userinfo_endpoint": issuer + "/userinfo", "end_session_endpoint": issuer + "/end_session",
        "scopes_supported": ["openid", "profile", "email"], "response_types_supported": ["code"], "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"], "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "code_challenge_methods_supported": ["S256"],
    }
    clients = {args.client_id: {
        "client_secret": secret, "redirect_uris": [args.redirect_uri], "response_types": ["code"],
        "token_endpoint_auth_method": "client_secret_basic", "post_logout_redirect_uris": [args.post_logout_uri]}}
    userinfo = Userinfo({name: {"preferred_username": name, "name": name.title()} for name in people})
    provider = Provider(new_key(), configuration, AuthorizationState(HashBasedSubjectIdentifierFactory("kioskpad-tests")),
                        clients, userinfo, id_token_lifetime=300)
    lock = threading.Lock()
    app = Flask("openid_provider")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    def claims(user, client_id):
        return {"preferred_username": user, "groups": people.get(user, {}).get("groups", [])}

    @app.get("/.well-known/openid-configuration")
    def discovery():
        with lock:
            return make_response(provider.provider_configuration.to_json(), 200, {"Content-Type": "application/json"})

    @app.get("/jwks")
    def jwks():
        with lock:
            return make_response(json.dumps(provider.jwks), 200, {"Content-Type": "application/json"})

    @app.route("/authorize", methods=["GET", "POST"])
    def authorize():
        query = request.args.to_dict()
        try:
            with lock:
                authn = provider.parse_authentication_request(urlencode(query), request.headers)
        except InvalidAuthenticationRequest as error:
            return make_response(f"bad authentication request: {error}", 400)
        if "code_challenge" not in authn or authn.get("code_challenge_method") != "S256":
            return make_response("this provider wants PKCE with S256", 400)
        user = request.form.get("user") if request.method == "POST" else request.cookies.get("op_user")
        if not user:
            return make_response('<form method="post" id="op-login"><label>Name <input name="user" id="op-user"></label>'
                                 '<button type="submit">Sign in at the provider</button></form>', 200)
        if user not in people:
            response = make_response(f"<p id='op-refused'>{user} is not known to this provider</p>", 403)
            response.delete_cookie("op_user")
            return response
        with lock:
            answer = provider.authorize(authn, user, extra_id_token_claims=claims)
        response = redirect(answer.request(authn["redirect_uri"], False), 303)
        response.set_cookie("op_user", user, httponly=True, samesite="Lax")
        return response

    @app.post("/token")
    def token():
        try:
            with lock:
                answer = provider.handle_token_request(request.get_data(as_text=True), dict(request.headers), extra_id_token_claims=claims)
            return make_response(answer.to_json(), 200, {"Content-Type": "application/json"})
        except OAuthError as error:
            return make_response(json.dumps({"error": error.oauth_error, "error_description": str(error)}), 400,
                                 {"Content-Type": "application/json"})

    @app.get("/end_session")
    def end_session():
        back = request.args.get("post_logout_redirect_uri")
        client = clients.get(request.args.get("client_id", ""), {})
        if back and back in client.get("post_logout_redirect_uris", []):
            response = redirect(back, 303)
        else:
            response = make_response("<p id='op-signed-out'>Signed out at the provider.</p>", 200)
        response.delete_cookie("op_user")
        return response

    @app.post("/_rotate")
    def rotate():
        with lock:
            provider.signing_key = new_key()
            return {"kid": provider.signing_key.kid}

    @app.post("/_remove")
    def remove():
        with lock:
            people.pop(request.args.get("user", ""), None)
        return {"people": sorted(people)}

    print(f"provider listening on {issuer}", flush=True)
    app.run(host="127.0.0.1", port=args.port, threaded=True, ssl_context=(args.cert, args.key))


if __name__ == "__main__":
    sys.exit(main())
