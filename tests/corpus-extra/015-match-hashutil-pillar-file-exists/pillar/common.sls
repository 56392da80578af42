role: web
secret: s3cr3t
