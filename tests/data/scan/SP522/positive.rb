require 'base64'
eval(Base64.decode64(PAYLOAD))
#---
instance_eval Base64.strict_decode64(PAYLOAD)
