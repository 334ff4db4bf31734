"""Provider token formats: one positive and one negative line per rule."""

from __future__ import annotations

import string

from tests.findings.rules.casekit import ALNUM, B64, BASE32, LOWER_HEX, URLSAFE, Case, npm, p, pick
from tests.tokens import github_token


def provider_cases(*, pw: str, npm_token: str) -> dict[str, Case]:
    s = pick
    cases: dict[str, Case] = {}

    def add(rule: str, path: str, line: str, value: str, negative: str) -> None:
        cases[rule] = Case(path, line, value, negative)

    # providers
    ghp = github_token(seed=17)
    add(
        "github-token",
        "ci.yml",
        f"token: {ghp}",
        ghp,
        f"token: {github_token(seed=17, valid_checksum=False)}",
    )
    fine = p("github", "_pat_", s(ALNUM, 22, 18), "_", s(ALNUM, 59, 19))
    add(
        "github-fine-grained-pat",
        "env.sh",
        f"export GH={fine}",
        fine,
        p("export GH=github", "_pat_", s(ALNUM, 10, 18)),
    )
    glpat = p("gl", "pat-", s(URLSAFE, 20, 20))
    add("gitlab-token", "ci.sh", f"TOKEN={glpat}", glpat, p("TOKEN=gl", "pat-", "short"))
    add("npm-token", "publish.sh", f"NPM={npm_token}", npm_token, f"NPM={npm(13, valid=False)}")
    pypi = p("pypi-", "AgEIcHlwaS5vcmc", s(URLSAFE, 60, 21))
    add(
        "pypi-token",
        "publish.sh",
        f"TWINE_PASSWORD={pypi}",
        pypi,
        p("TWINE_PASSWORD=pypi-", "AgEI", s(URLSAFE, 60, 21)),
    )
    shop = p("shp", "at_", s(LOWER_HEX, 32, 22))
    add(
        "shopify-token",
        "shop.rb",
        f"TOKEN = '{shop}'",
        shop,
        p("TOKEN = 'shp", "at_", s(LOWER_HEX, 20, 22), "'"),
    )
    atl = p("ATATT3", s(URLSAFE, 180, 23))
    add("atlassian-api-token", "jira.env", f"JIRA={atl}", atl, p("JIRA=ATATT3", s(URLSAFE, 40, 23)))
    dapi = p("da", "pi", s(LOWER_HEX, 32, 24))
    add(
        "databricks-token",
        "db.cfg",
        f"token = {dapi}",
        dapi,
        p("token = da", "pi", s(LOWER_HEX, 12, 24)),
    )
    dop = p("dp.", "pt.", s(ALNUM, 43, 25))
    add("doppler-token", "d.env", f"DOPPLER_TOKEN={dop}", dop, p("DOPPLER_TOKEN=dp.", "pt.", "x"))
    pul = p("pul", "-", s(LOWER_HEX, 40, 26))
    add(
        "pulumi-token",
        "p.env",
        f"PULUMI_ACCESS_TOKEN={pul}",
        pul,
        p("PULUMI_ACCESS_TOKEN=pul", "-", s(LOWER_HEX, 12, 26)),
    )
    glsa = p("gl", "sa_", s(ALNUM, 32, 27), "_", s(LOWER_HEX, 8, 28))
    add("grafana-token", "g.env", f"GRAFANA={glsa}", glsa, p("GRAFANA=gl", "sa_", s(ALNUM, 10, 27)))
    hvs = p("hv", "s.", s(URLSAFE, 90, 29))
    add("vault-token", "v.env", f"VAULT_TOKEN={hvs}", hvs, p("VAULT_TOKEN=hv", "s.short"))
    tfc = p(s(ALNUM, 14, 30), ".atlas", "v1.", s(URLSAFE, 67, 31))
    add(
        "terraform-cloud-token",
        ".terraformrc",
        f'token = "{tfc}"',
        tfc,
        p('token = "', s(ALNUM, 14, 30), ".atlas", 'v1.x"'),
    )
    dop1 = p("do", "p_v1_", s(LOWER_HEX, 64, 32))
    add(
        "digitalocean-token",
        "do.env",
        f"DO={dop1}",
        dop1,
        p("DO=do", "p_v1_", s(LOWER_HEX, 20, 32)),
    )
    hrku = p("HR", "KU-AA", s(URLSAFE, 58, 33))
    add("heroku-api-key", "h.env", f"HEROKU={hrku}", hrku, p("HEROKU=HR", "KU-"))
    uuid = "-".join(s(LOWER_HEX, n, 34 + i) for i, n in enumerate((8, 4, 4, 4, 12)))
    add("heroku-api-key-legacy", "h.sh", f"HEROKU_API_KEY={uuid}", uuid, f"HEROKU_APP_ID={uuid}")
    sk = p("S", "K", s(LOWER_HEX, 32, 39))
    add(
        "twilio-api-key",
        "t.py",
        f'key_sid = "{sk}"',
        sk,
        p('key_sid = "S', "K", s(LOWER_HEX, 20, 39), '"'),
    )
    twt = s(LOWER_HEX, 32, 40)
    add(
        "twilio-auth-token", "t.env", f"TWILIO_AUTH_TOKEN={twt}", twt, f"TWILIO_ACCOUNT_SID=AC{twt}"
    )
    sg = p("S", "G.", s(URLSAFE, 22, 41), ".", s(URLSAFE, 43, 42))
    add(
        "sendgrid-api-key",
        "m.env",
        f"SENDGRID={sg}",
        sg,
        p("SENDGRID=S", "G.", s(URLSAFE, 10, 41)),
    )
    mg = p("ke", "y-", s(LOWER_HEX, 32, 43))
    add(
        "mailgun-api-key",
        "m.rb",
        f"api_key: '{mg}'",
        mg,
        p("api_key: 'ke", "y-", s(LOWER_HEX, 10, 43), "'"),
    )
    pm = p("PM", "AK-", s(LOWER_HEX, 24, 44), "-", s(LOWER_HEX, 34, 45))
    add(
        "postman-api-key",
        "p.env",
        f"POSTMAN={pm}",
        pm,
        p("POSTMAN=PM", "AK-", s(LOWER_HEX, 24, 44)),
    )
    lin = p("lin", "_api_", s(ALNUM, 40, 46))
    add("linear-api-key", "l.env", f"LINEAR={lin}", lin, p("LINEAR=lin", "_api_", s(ALNUM, 8, 46)))
    oa = p("sk-", "proj-", s(URLSAFE, 64, 47))
    add(
        "openai-api-key",
        "o.env",
        f"OPENAI_API_KEY={oa}",
        oa,
        p("OPENAI_API_KEY=sk-", "proj-", "short"),
    )
    ant = p("sk-", "ant-api03-", s(URLSAFE, 93, 48))
    add(
        "anthropic-api-key",
        "a.env",
        f"ANTHROPIC_API_KEY={ant}",
        ant,
        p("ANTHROPIC_API_KEY=sk-", "ant-", "x"),
    )
    ppl = p("pp", "lx-", s(ALNUM, 48, 49))
    add("perplexity-api-key", "p.env", f"PPLX={ppl}", ppl, p("PPLX=pp", "lx-", s(ALNUM, 12, 49)))
    aiza = p("AI", "za", s(URLSAFE, 35, 50))
    add(
        "google-api-key",
        "g.js",
        f"const key = '{aiza}';",
        aiza,
        p("const key = 'AI", "za", s(URLSAFE, 20, 50), "';"),
    )
    gocs = p("GOC", "SPX-", s(URLSAFE, 28, 51))
    add(
        "google-oauth-client-secret",
        "g.json",
        f'"client_secret": "{gocs}"',
        gocs,
        p('"client_secret": "GOC', 'SPX-"'),
    )
    ya = p("ya", "29.", s(URLSAFE, 60, 52))
    add(
        "google-oauth-token",
        "g.sh",
        f"curl -H 'Authorization: OAuth {ya}'",
        ya,
        p("see the ya", "29. prefix"),
    )
    ak = s(B64, 86, 53) + "=="
    add(
        "azure-storage-account-key",
        "a.cfg",
        f"DefaultEndpointsProtocol=https;AccountName=x;AccountKey={ak};",
        ak,
        "AccountKey=${STORAGE_KEY};",
    )
    sig = s(ALNUM, 43, 54) + "%3D"
    add(
        "azure-sas-signature",
        "sas.txt",
        f"https://x.blob.core.windows.net/c?sv=2022-11-02&ss=b&se=2030-01-01&sp=r&sig={sig}",
        sig,
        "https://x.blob.core.windows.net/c?sig=abc",
    )
    azs = p(s(ALNUM, 3, 55), "8Q", "~", s(URLSAFE, 34, 56))
    add(
        "azure-ad-client-secret",
        "a.json",
        f'"secret": "{azs}"',
        azs,
        p('"secret": "', s(ALNUM, 3, 55), "8Q", '~short"'),
    )
    aws = s(ALNUM + "/+", 40, 57)
    add(
        "aws-secret-access-key",
        "aws.cfg",
        f"aws_secret_access_key = {aws}",
        aws,
        "aws_secret_access_key = " + "a" * 40,
    )
    xapp = p(
        "xa",
        "pp-1-",
        s(string.ascii_uppercase + string.digits, 11, 58),
        "-",
        s(string.digits, 13, 59),
        "-",
        s(LOWER_HEX, 64, 60),
    )
    add(
        "slack-app-token",
        "s.env",
        f"SLACK_APP_TOKEN={xapp}",
        xapp,
        p("SLACK_APP_TOKEN=xa", "pp-1-x"),
    )
    wh = p("wh", "sec_", s(ALNUM, 32, 61))
    add(
        "stripe-webhook-secret",
        "s.env",
        f"STRIPE_WEBHOOK={wh}",
        wh,
        p("STRIPE_WEBHOOK=wh", "sec_", s(ALNUM, 8, 61)),
    )
    skt = p("sk", "_test_", s(ALNUM, 24, 62))
    add("stripe-test-key", "s.env", f"STRIPE={skt}", skt, p("STRIPE=sk", "_test_", s(ALNUM, 6, 62)))
    hook = p(
        "https://discord.com/api/", "webhooks/", s(string.digits, 18, 63), "/", s(URLSAFE, 68, 64)
    )
    add(
        "discord-webhook",
        "d.env",
        f"HOOK={hook}",
        hook,
        "HOOK=https://discord.com/api/webhooks/123/abc",
    )
    seed = p("S", "U", s(BASE32, 56, 65))
    add("nats-nkey-seed", "user.nk", seed, seed, p("S", "U", s(BASE32, 40, 65)))
    age = p("AGE-SECRET", "-KEY-1", s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 66))
    add("age-secret-key", "key.txt", age, age, p("AGE-SECRET", "-KEY-1", "short"))
    hf = p("h", "f_", s(string.ascii_letters, 34, 67))
    add(
        "huggingface-token",
        "h.env",
        f"HF_TOKEN={hf}",
        hf,
        p("HF_TOKEN=h", "f_", s(string.ascii_letters, 10, 67)),
    )
    sntry = p("sntr", "yu_", s(LOWER_HEX, 64, 68))
    add(
        "sentry-token",
        "s.env",
        f"SENTRY_AUTH_TOKEN={sntry}",
        sntry,
        p("SENTRY_AUTH_TOKEN=sntr", "yu_", s(LOWER_HEX, 10, 68)),
    )
    eaaa = p("EA", "AA", s(URLSAFE, 60, 69))
    add(
        "square-access-token",
        "sq.env",
        f"SQUARE={eaaa}",
        eaaa,
        p("SQUARE=EA", "AA", s(URLSAFE, 10, 69)),
    )
    nrak = p("NR", "AK-", s(string.ascii_uppercase + string.digits, 27, 70))
    add(
        "new-relic-key",
        "nr.env",
        f"NEW_RELIC_API_KEY={nrak}",
        nrak,
        p("NEW_RELIC_API_KEY=NR", "AK-", "X"),
    )
    dbx = p("sl", ".", s(URLSAFE, 140, 71))
    add(
        "dropbox-token",
        "d.py",
        f'TOKEN = "{dbx}"',
        dbx,
        p('TOKEN = "sl', ".", s(URLSAFE, 20, 71), '"'),
    )
    wx = s(ALNUM, 32, 72)
    add("wechat-app-secret", "WxPay.php", f"const APPSECRET = '{wx}';", wx, "const APPSECRET = '';")
    tok = s(ALNUM, 24, 73)
    add(
        "url-query-credential",
        "README.md",
        f"GET https://api.example.org/v1/me?access_token={tok}&lang=en",
        tok,
        "GET https://api.example.org/v1/me?token_type=bearer",
    )
    add(
        "php-define-credential",
        "wp-config.php",
        f"define('AUTH_KEY', '{pw}');",
        pw,
        "define('AUTH_KEY', '');",
    )
    add(
        "sql-password",
        "init.sql",
        f"CREATE USER app IDENTIFIED BY '{pw}';",
        pw,
        "CREATE USER app IDENTIFIED EXTERNALLY;",
    )
    add(
        "mysql-cli-password",
        "backup.sh",
        f"mysqldump -u root -p{pw} app > app.sql",
        pw,
        "mysqldump -u root -p app > app.sql",
    )
    bcrypt = p("$2b$", "12$", s(ALNUM + "./", 53, 74))
    add(
        "password-hash",
        "users.sql",
        f"INSERT INTO users VALUES (1, 'ann', '{bcrypt}');",
        bcrypt,
        "INSERT INTO users VALUES (1, 'ann', '$2b$12$short');",
    )
    return cases
