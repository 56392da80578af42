#!yaml|gpg
app_user:
  test.nop:
    - password: |
        -----BEGIN PGP MESSAGE-----

        hQEMAweRHKaPCfNeAQf9GLTN16hCfXAbPwU6BbBK0unOc7i9/etGuVc5CyU9Q6um
        =abcd
        -----END PGP MESSAGE-----
