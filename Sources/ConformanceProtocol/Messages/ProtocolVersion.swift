/// The adapter protocol version this suite speaks.
public let adapterProtocolVersion = 1
