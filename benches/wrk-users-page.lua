-- wrk script: POST one paginatedUsers(first: 50) page with five fields, with a bearer token.
-- Used by benches/sandbox-wrk.sh; the token comes from the environment.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
wrk.body = '{"query":"{ paginatedUsers(first: 50) { count edges { node { id ref name email isActive } } } }"}'
