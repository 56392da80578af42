{% set m = salt['match.compound'] %}
match-results:
  test.show_notification:
    - text: >-
        compound={{ m('G@os:Debian and web*') }}
        compound_other={{ salt['match.compound']('web*', minion_id='db01') }}
        glob={{ salt['match.glob']('web0?') }} glob_other={{ salt['match.glob']('web*', minion_id='db01') }}
        pcre={{ salt['match.pcre']('web\d+') }}
        list={{ salt['match.list']('db01,web01') }}
        grain={{ salt['match.grain']('roles:cache') }} grain_delim={{ salt['match.grain']('os|Deb*', delimiter='|') }}
        grain_pcre={{ salt['match.grain_pcre']('os:Deb.*') }}
        pillar={{ salt['match.pillar']('role:web') }}
        pillar_pcre={{ salt['match.pillar_pcre']('role:w.b') }}
        ipcidr={{ salt['match.ipcidr']('10.1.0.0/16') }}
        filter={{ salt['match.filter_by']({'web*': 'w', 'db*': 'd'}) }}
        filter_default={{ salt['match.filter_by']({'db*': 'd', 'default': 'x'}) }}
        filter_grain={{ salt['match.filter_by']({'os:Debian': {'a': 1}}, tgt_type='grain') }}
        search={{ salt['match.search_by']({'front': ['web*'], 'back': ['db*', 'G@os:Debian']}) }}
        search_none={{ salt['match.search_by']({'back': ['db*']}) }}
hash-results:
  test.show_notification:
    - text: >-
        md5={{ salt['hashutil.md5_digest']('lowstate') }}
        sha256={{ salt['hashutil.sha256_digest']('lowstate') }}
        sha512={{ salt['hashutil.sha512_digest']('lowstate')[:32] }}
        digest={{ salt['hashutil.digest']('lowstate') }} digest_sha256={{ salt['hashutil.digest']('lowstate', checksum='sha256')[:16] }}
        b64={{ salt['hashutil.base64_b64encode']('lowstate') }}
        unb64={{ salt['hashutil.base64_b64decode']('bG93c3RhdGU=') }}
        hmac_ok={{ salt['hashutil.hmac_signature']('msg', 'key', 'LZPLwb4We8sWN6SiPL/wGnh48MUO6DOVTqUiG7G4xig=') }}
        hmac_bad={{ salt['hashutil.hmac_signature']('msg', 'key', 'nope') }}
        github={{ salt['hashutil.github_signature']('msg', 'key', 'sha1=102900b72b7bf1031eec76b4804b66052376896b') }}
pillar-seen:
  test.show_notification:
    - text: "site={{ pillar.get('site', 'none') }} none={{ none | default(None, true) }} empty={{ '' | default(None, true) }}"
