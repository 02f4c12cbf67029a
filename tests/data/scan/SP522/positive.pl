use MIME::Base64;
eval decode_base64($payload);
#---
eval(unpack('u', $payload));
#---
perl -MMIME::Base64 -e 'eval decode_base64("ZWNobyBoaQ==")'
