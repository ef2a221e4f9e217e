--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: kioskpad_access; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_access (
    user_name text NOT NULL,
    rule text NOT NULL,
    schedule text
);


--
-- Name: kioskpad_admins; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_admins (
    name text NOT NULL,
    hash text NOT NULL,
    failed_logins integer DEFAULT 0 NOT NULL,
    locked_until double precision,
    totp_secret text,
    totp_last_step bigint,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: kioskpad_alert_acks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_alert_acks (
    terminal_id text NOT NULL,
    alert text NOT NULL,
    admin_name text NOT NULL,
    at double precision NOT NULL
);


--
-- Name: kioskpad_audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_audit (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    instance text NOT NULL,
    record jsonb NOT NULL
);


--
-- Name: kioskpad_audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.kioskpad_audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: kioskpad_audit_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.kioskpad_audit_id_seq OWNED BY public.kioskpad_audit.id;


--
-- Name: kioskpad_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_codes (
    id bigint NOT NULL,
    user_name text NOT NULL,
    hash text NOT NULL,
    expires_at bigint NOT NULL,
    used_at bigint,
    door text
);


--
-- Name: kioskpad_codes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.kioskpad_codes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: kioskpad_codes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.kioskpad_codes_id_seq OWNED BY public.kioskpad_codes.id;


--
-- Name: kioskpad_console_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_console_sessions (
    token_hash text NOT NULL,
    admin_name text NOT NULL,
    csrf text NOT NULL,
    created_at double precision NOT NULL,
    expires_at double precision NOT NULL,
    idle_until double precision NOT NULL
);


--
-- Name: kioskpad_doors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_doors (
    terminal_id text NOT NULL,
    secret text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: kioskpad_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_events (
    id text NOT NULL,
    terminal_id text NOT NULL,
    type text NOT NULL,
    at double precision NOT NULL,
    seq bigint NOT NULL,
    record jsonb NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: kioskpad_lockout; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_lockout (
    terminal_id text NOT NULL,
    failures double precision[] DEFAULT '{}'::double precision[] NOT NULL,
    streak integer DEFAULT 0 NOT NULL,
    locked_until double precision
);


--
-- Name: kioskpad_replay; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_replay (
    webhook_id text NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: kioskpad_schedules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_schedules (
    name text NOT NULL,
    spec text NOT NULL
);


--
-- Name: kioskpad_schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_schema_migrations (
    version integer NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: kioskpad_site; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_site (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: kioskpad_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kioskpad_users (
    id bigint NOT NULL,
    name text NOT NULL,
    kind text NOT NULL,
    hash text NOT NULL,
    lookup_tag text,
    lookup_key_id text,
    totp_secret text,
    totp_last_step bigint,
    enabled boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT kioskpad_users_check CHECK (((totp_secret IS NULL) OR (kind = 'pin'::text))),
    CONSTRAINT kioskpad_users_kind_check CHECK ((kind = ANY (ARRAY['pin'::text, 'duress'::text, 'card'::text])))
);


--
-- Name: kioskpad_users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.kioskpad_users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: kioskpad_users_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.kioskpad_users_id_seq OWNED BY public.kioskpad_users.id;


--
-- Name: kioskpad_audit id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_audit ALTER COLUMN id SET DEFAULT nextval('public.kioskpad_audit_id_seq'::regclass);


--
-- Name: kioskpad_codes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_codes ALTER COLUMN id SET DEFAULT nextval('public.kioskpad_codes_id_seq'::regclass);


--
-- Name: kioskpad_users id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_users ALTER COLUMN id SET DEFAULT nextval('public.kioskpad_users_id_seq'::regclass);


--
-- Data for Name: kioskpad_access; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_access (user_name, rule, schedule) FROM stdin;
alice	schedule=days	days
\.


--
-- Data for Name: kioskpad_admins; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_admins (name, hash, failed_logins, locked_until, totp_secret, totp_last_step, created_at) FROM stdin;
root	$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0	0	\N	\N	\N	2026-11-27 11:32:16.310131+00
\.


--
-- Data for Name: kioskpad_alert_acks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_alert_acks (terminal_id, alert, admin_name, at) FROM stdin;
front-door	offline	root	1764230000
\.


--
-- Data for Name: kioskpad_audit; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_audit (id, at, instance, record) FROM stdin;
1	2026-11-27 11:32:16.302126+00	site-1	{"user": "alice", "decision": "granted", "terminal_id": "front-door"}
\.


--
-- Data for Name: kioskpad_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_codes (id, user_name, hash, expires_at, used_at, door) FROM stdin;
1	alice	$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0	4102444800	\N	front-door
\.


--
-- Data for Name: kioskpad_console_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_console_sessions (token_hash, admin_name, csrf, created_at, expires_at, idle_until) FROM stdin;
tokenhash1	root	csrf1	1764230000	4102444800	4102444800
\.


--
-- Data for Name: kioskpad_doors; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_doors (terminal_id, secret, created_at) FROM stdin;
front-door	whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=	2026-11-27 11:32:16.294165+00
\.


--
-- Data for Name: kioskpad_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_events (id, terminal_id, type, at, seq, record, received_at) FROM stdin;
e1	front-door	start	1764230000.5	1	{"id": "e1", "type": "start"}	2026-11-27 11:32:16.296144+00
\.


--
-- Data for Name: kioskpad_lockout; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_lockout (terminal_id, failures, streak, locked_until) FROM stdin;
front-door	{1764230000.5,1764230001.25}	2	1764230300
\.


--
-- Data for Name: kioskpad_replay; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_replay (webhook_id, expires_at) FROM stdin;
\.


--
-- Data for Name: kioskpad_schedules; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_schedules (name, spec) FROM stdin;
days	mon-fri 08:00-18:00
\.


--
-- Data for Name: kioskpad_schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_schema_migrations (version, applied_at) FROM stdin;
1	2026-11-20 08:00:00+00
2	2026-11-20 08:00:00+00
3	2026-11-20 08:00:00+00
4	2026-11-20 08:00:00+00
\.


--
-- Data for Name: kioskpad_site; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_site (key, value) FROM stdin;
time_zone	Europe/Berlin
\.


--
-- Data for Name: kioskpad_users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.kioskpad_users (id, name, kind, hash, lookup_tag, lookup_key_id, totp_secret, totp_last_step, enabled, created_at) FROM stdin;
1	alice	pin	$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0	\N	\N	\N	\N	t	2026-11-27 11:32:16.274097+00
2	bob	card	$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0	\N	\N	\N	\N	t	2026-11-27 11:32:16.278092+00
\.


--
-- Name: kioskpad_audit_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.kioskpad_audit_id_seq', 1, true);


--
-- Name: kioskpad_codes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.kioskpad_codes_id_seq', 1, true);


--
-- Name: kioskpad_users_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.kioskpad_users_id_seq', 2, true);


--
-- Name: kioskpad_access kioskpad_access_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_access
    ADD CONSTRAINT kioskpad_access_pkey PRIMARY KEY (user_name);


--
-- Name: kioskpad_admins kioskpad_admins_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_admins
    ADD CONSTRAINT kioskpad_admins_pkey PRIMARY KEY (name);


--
-- Name: kioskpad_alert_acks kioskpad_alert_acks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_alert_acks
    ADD CONSTRAINT kioskpad_alert_acks_pkey PRIMARY KEY (terminal_id, alert);


--
-- Name: kioskpad_audit kioskpad_audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_audit
    ADD CONSTRAINT kioskpad_audit_pkey PRIMARY KEY (id);


--
-- Name: kioskpad_codes kioskpad_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_codes
    ADD CONSTRAINT kioskpad_codes_pkey PRIMARY KEY (id);


--
-- Name: kioskpad_console_sessions kioskpad_console_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_console_sessions
    ADD CONSTRAINT kioskpad_console_sessions_pkey PRIMARY KEY (token_hash);


--
-- Name: kioskpad_doors kioskpad_doors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_doors
    ADD CONSTRAINT kioskpad_doors_pkey PRIMARY KEY (terminal_id);


--
-- Name: kioskpad_events kioskpad_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_events
    ADD CONSTRAINT kioskpad_events_pkey PRIMARY KEY (id);


--
-- Name: kioskpad_lockout kioskpad_lockout_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_lockout
    ADD CONSTRAINT kioskpad_lockout_pkey PRIMARY KEY (terminal_id);


--
-- Name: kioskpad_replay kioskpad_replay_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_replay
    ADD CONSTRAINT kioskpad_replay_pkey PRIMARY KEY (webhook_id);


--
-- Name: kioskpad_schedules kioskpad_schedules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_schedules
    ADD CONSTRAINT kioskpad_schedules_pkey PRIMARY KEY (name);


--
-- Name: kioskpad_schema_migrations kioskpad_schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_schema_migrations
    ADD CONSTRAINT kioskpad_schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: kioskpad_site kioskpad_site_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_site
    ADD CONSTRAINT kioskpad_site_pkey PRIMARY KEY (key);


--
-- Name: kioskpad_users kioskpad_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kioskpad_users
    ADD CONSTRAINT kioskpad_users_pkey PRIMARY KEY (id);


--
-- Name: kioskpad_access_schedule; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_access_schedule ON public.kioskpad_access USING btree (schedule);


--
-- Name: kioskpad_audit_decisions; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_audit_decisions ON public.kioskpad_audit USING btree (id) WHERE ((record ->> 'decision'::text) = ANY (ARRAY['granted'::text, 'denied'::text]));


--
-- Name: kioskpad_audit_decisions_door; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_audit_decisions_door ON public.kioskpad_audit USING btree (((record ->> 'terminal_id'::text)), id) WHERE ((record ->> 'decision'::text) = ANY (ARRAY['granted'::text, 'denied'::text]));


--
-- Name: kioskpad_audit_decisions_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_audit_decisions_user ON public.kioskpad_audit USING btree (((record ->> 'user'::text)), id) WHERE ((record ->> 'decision'::text) = ANY (ARRAY['granted'::text, 'denied'::text]));


--
-- Name: kioskpad_codes_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_codes_live ON public.kioskpad_codes USING btree (expires_at) WHERE (used_at IS NULL);


--
-- Name: kioskpad_console_sessions_admin; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_console_sessions_admin ON public.kioskpad_console_sessions USING btree (admin_name);


--
-- Name: kioskpad_events_door_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_events_door_time ON public.kioskpad_events USING btree (terminal_id, at);


--
-- Name: kioskpad_events_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_events_time ON public.kioskpad_events USING btree (at);


--
-- Name: kioskpad_events_type_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_events_type_time ON public.kioskpad_events USING btree (type, at);


--
-- Name: kioskpad_replay_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_replay_expires ON public.kioskpad_replay USING btree (expires_at);


--
-- Name: kioskpad_users_lookup_key_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_users_lookup_key_id ON public.kioskpad_users USING btree (lookup_key_id);


--
-- Name: kioskpad_users_lookup_tag; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_users_lookup_tag ON public.kioskpad_users USING btree (lookup_tag);


--
-- Name: kioskpad_users_one_duress; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX kioskpad_users_one_duress ON public.kioskpad_users USING btree (name) WHERE (kind = 'duress'::text);


--
-- Name: kioskpad_users_one_pin; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX kioskpad_users_one_pin ON public.kioskpad_users USING btree (name) WHERE (kind = 'pin'::text);


--
-- Name: kioskpad_users_totp; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX kioskpad_users_totp ON public.kioskpad_users USING btree (id) WHERE (totp_secret IS NOT NULL);


--
-- PostgreSQL database dump complete
--


