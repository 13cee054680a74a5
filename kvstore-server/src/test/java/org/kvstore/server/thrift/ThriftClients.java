package org.kvstore.server.thrift;

import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.kvstore.thrift.KvService;

/** Plain libthrift clients of the four formats, as the Java tutorial builds them. */
final class ThriftClients {
  private ThriftClients() {}

  /** An open client; close it with {@code client.getInputProtocol().getTransport().close()}. */
  static KvService.Client open(int port, ThriftWireFormat format) throws TTransportException {
    TSocket socket = new TSocket("127.0.0.1", port, 10_000);
    socket.open();
    TTransport transport = format.framed() ? new TFramedTransport(socket) : socket;
    TProtocol protocol = format.binary() ? new TBinaryProtocol(transport) : new TCompactProtocol(transport);
    return new KvService.Client(protocol);
  }

  static void close(KvService.Client client) {
    client.getInputProtocol().getTransport().close();
  }
}
